/**
 * `Mcp-Param-*` header mirroring (2026-07-28 Streamable HTTP, "Custom headers from tool
 * parameters", SEP-2243): a tool's `inputSchema` may mark properties with `x-mcp-header: Name`,
 * and a `tools/call` over HTTP then carries each such argument as `Mcp-Param-Name: value` too.
 *
 * Ours, not the SDK's: SDK v2 mirrors only inside `Client.callTool`, which we do not use (we
 * need `allowInputRequired` and our own result schema), and turns mirroring off in browsers.
 * Pure and table-tested (`param-headers.test.ts`); `call-mcp-tool.ts` hands the result to the
 * request as its per-request `headers`.
 *
 * The rules:
 * - a declaration is a property reached from the root through `properties` only (any depth);
 *   an `x-mcp-header` anywhere else (`items`, `anyOf`, `$defs`, …) makes the tool invalid;
 * - its value is a non-empty RFC 9110 token, unique case-insensitively within the tool;
 * - the property's `type` is `string`, `integer` or `boolean` (not `number`);
 * - a null or absent argument sends no header; a value that is not a primitive sends none;
 * - strings go as they are, integers in decimal, booleans as `true` / `false`;
 * - a value that is not safe as a plain header value (a character outside 0x20–0x7E, leading or
 *   trailing whitespace, empty, or itself shaped like the sentinel) is sent as
 *   `=?base64?{base64 of its UTF-8}?=`.
 *
 * A tool whose declarations are invalid is dropped at listing (the SDK's filter, see
 * `list-all-tools.ts`); here such a schema simply mirrors nothing.
 */

/** The prefix of every mirrored header. */
export const MCP_PARAM_HEADER_PREFIX = 'Mcp-Param-';

/** One `x-mcp-header` declaration: where the argument is, and the header's name part. */
export interface HeaderParam {
  /** Property names from the arguments object down to the value. */
  path: readonly string[];
  /** The `x-mcp-header` value: the header is `Mcp-Param-{name}`. */
  name: string;
}

/** The declarations of a schema, or why it is invalid. */
export type HeaderParamScan =
  { valid: true; params: readonly HeaderParam[] } | { valid: false; reason: string };

const X_MCP_HEADER = 'x-mcp-header';
/** RFC 9110 §5.6.2 `token`. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PERMITTED_TYPES = new Set(['string', 'integer', 'boolean']);
/** Keywords whose subschemas are not on a `properties`-only chain. */
const UNREACHABLE_KEYWORDS = [
  'items',
  'prefixItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'patternProperties',
  'dependentSchemas',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
] as const;
/** Of those, the ones whose value maps names to subschemas. */
const MAP_KEYWORDS = new Set(['patternProperties', 'dependentSchemas', '$defs', 'definitions']);
const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';

/** Scans memoized per schema object: a listed tool's schema is the same object on every call. */
const scans = new WeakMap<object, HeaderParamScan>();

/** The `x-mcp-header` declarations of `inputSchema`, or the first rule it breaks. */
export function scanHeaderParams(inputSchema: unknown): HeaderParamScan {
  if (typeof inputSchema !== 'object' || inputSchema === null) return { valid: true, params: [] };
  const cached = scans.get(inputSchema);
  if (cached !== undefined) return cached;
  const params: HeaderParam[] = [];
  const seen = new Map<string, string>();

  const visit = (node: unknown, path: string[], reachable: boolean): string | undefined => {
    if (typeof node !== 'object' || node === null) return undefined;
    const schema = node as Record<string, unknown>;
    if (X_MCP_HEADER in schema) {
      const where = path.length === 0 ? '<root>' : path.join('.');
      if (!reachable || path.length === 0) {
        return `${where}: x-mcp-header is only allowed on a property reached through "properties"`;
      }
      const name = schema[X_MCP_HEADER];
      if (typeof name !== 'string' || name === '') {
        return `${where}: x-mcp-header must be a non-empty string`;
      }
      if (!TOKEN.test(name)) return `${where}: x-mcp-header "${name}" is not an HTTP token`;
      const type = schema.type;
      if (typeof type !== 'string' || !PERMITTED_TYPES.has(type)) {
        return `${where}: x-mcp-header needs type string, integer or boolean (got ${JSON.stringify(type ?? null)})`;
      }
      const prior = seen.get(name.toLowerCase());
      if (prior !== undefined) return `x-mcp-header "${name}" repeats "${prior}"`;
      seen.set(name.toLowerCase(), name);
      params.push({ path, name });
    }
    const properties = schema.properties;
    if (typeof properties === 'object' && properties !== null && !Array.isArray(properties)) {
      for (const [key, child] of Object.entries(properties)) {
        const fault = visit(child, [...path, key], reachable);
        if (fault !== undefined) return fault;
      }
    }
    for (const keyword of UNREACHABLE_KEYWORDS) {
      const sub = schema[keyword];
      if (sub === undefined) continue;
      let branches: unknown[] = [sub];
      if (Array.isArray(sub)) branches = sub;
      else if (MAP_KEYWORDS.has(keyword) && typeof sub === 'object' && sub !== null) {
        branches = Object.values(sub);
      }
      for (const branch of branches) {
        const fault = visit(branch, [...path, `<${keyword}>`], false);
        if (fault !== undefined) return fault;
      }
    }
    return undefined;
  };

  const fault = visit(inputSchema, [], true);
  const scan: HeaderParamScan =
    fault === undefined ? { valid: true, params } : { valid: false, reason: fault };
  scans.set(inputSchema, scan);
  return scan;
}

/**
 * The `Mcp-Param-*` headers of one `tools/call` of a tool with `inputSchema` and `args`: none
 * when the schema declares none or is invalid.
 */
export function mcpParamHeaders(
  inputSchema: unknown,
  args: Record<string, unknown>,
): Record<string, string> {
  const scan = scanHeaderParams(inputSchema);
  const headers: Record<string, string> = {};
  if (!scan.valid) return headers;
  for (const param of scan.params) {
    const text = headerText(valueAt(args, param.path));
    if (text !== undefined) headers[`${MCP_PARAM_HEADER_PREFIX}${param.name}`] = encodeValue(text);
  }
  return headers;
}

/** A header value: plain when safe, else the Base64 sentinel form. */
export function encodeValue(text: string): string {
  return needsBase64(text) ? `${SENTINEL_PREFIX}${base64Utf8(text)}${SENTINEL_SUFFIX}` : text;
}

/** The text of a primitive argument; undefined (no header) for null, absent or non-primitives. */
function headerText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value)) {
    if (Number.isInteger(value) && !Number.isSafeInteger(value)) return undefined;
    return String(value);
  }
  return undefined;
}

function needsBase64(text: string): boolean {
  if (text === '' || text !== text.trim()) return true;
  if (text.startsWith(SENTINEL_PREFIX) && text.endsWith(SENTINEL_SUFFIX)) return true;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code > 0x7e) return true;
  }
  return false;
}

/** Base64 of the UTF-8 bytes (`btoa`: browsers and Node alike). */
function base64Utf8(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
