import type { InputRequest, Resolution } from '../../vocabulary/interrupts.ts';
import type { ElicitResultLike } from './resume-state.ts';

/** What {@link parseElicitation} makes of an `elicitation/create` params object. */
export type ParsedElicitation = { ok: true; request: InputRequest } | { ok: false; reason: string };

/**
 * Our own, lenient reading of `elicitation/create` params (pushed or an MRTR input request),
 * in place of the SDK's check against the spec's restricted schema subset: any JSON Schema
 * object the server sends as `requestedSchema` reaches the interrupt unchanged (nullable enums,
 * titled selects, `$ref`/`$defs`, …); the form renders what it can and the answer is validated
 * against the schema as sent. Refused, with the reason, only what cannot be asked at all: a
 * form without a `requestedSchema` object, a schema that does not describe an object (`type`
 * other than `"object"`, `properties` not an object), a URL request without a URL, or an
 * unknown `mode`.
 */
export function parseElicitation(params: unknown): ParsedElicitation {
  if (!isPlainObject(params)) {
    return { ok: false, reason: 'params must be an object' };
  }
  const rawMode = params.mode;
  if (rawMode !== undefined && rawMode !== 'form' && rawMode !== 'url') {
    return {
      ok: false,
      reason: `unknown mode ${JSON.stringify(rawMode)} (this client supports "form" and "url")`,
    };
  }
  const mode = rawMode === 'url' ? 'url' : 'form';
  const request: InputRequest = { mode };
  if (typeof params.message === 'string') request.message = params.message;
  if (mode === 'form') {
    const reason = notAnObjectSchema(params.requestedSchema);
    if (reason !== undefined) return { ok: false, reason };
    request.requestedSchema = params.requestedSchema as Record<string, unknown>;
  } else {
    if (typeof params.url !== 'string' || params.url === '') {
      return { ok: false, reason: 'a url-mode request needs "url", a string' };
    }
    request.url = params.url;
  }
  if (typeof params.elicitationId === 'string') request.elicitationId = params.elicitationId;
  return { ok: true, request };
}

/** Why `schema` is not a JSON Schema of an object, or undefined when it is one. */
function notAnObjectSchema(schema: unknown): string | undefined {
  if (schema === undefined) {
    return 'a form request needs "requestedSchema", a JSON Schema object';
  }
  if (!isPlainObject(schema)) {
    const got = schema === null ? 'null' : Array.isArray(schema) ? 'an array' : typeof schema;
    return `"requestedSchema" must be a JSON Schema object, got ${got}`;
  }
  const type = schema.type;
  const types = Array.isArray(type) ? (type as unknown[]) : [type];
  if (type !== undefined && !types.includes('object')) {
    return `"requestedSchema" must describe an object (type "object"), got type ${JSON.stringify(type)}`;
  }
  if (schema.properties !== undefined && !isPlainObject(schema.properties)) {
    return '"requestedSchema.properties" must be an object of property schemas';
  }
  return undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The user's real answer in MCP terms: approve → accept, reject → decline, cancel → cancel.
 * Accepted form content gets the schema's `default` for every field the user left out, as the
 * client declares `elicitation.form.applyDefaults` (spec 2025-11-25, SEP-1034).
 */
export function toElicitResult(
  resolution: Resolution,
  requestedSchema?: Record<string, unknown>,
): ElicitResultLike {
  if (resolution.action === 'approve') {
    const content = withDefaults(resolution.content, requestedSchema);
    return content === undefined ? { action: 'accept' } : { action: 'accept', content };
  }
  return { action: resolution.action === 'reject' ? 'decline' : 'cancel' };
}

/**
 * The first elicitation request of `inputRequests` not answered yet, as an {@link InputRequest},
 * or, when that request cannot be asked (see {@link parseElicitation}), why.
 */
export function nextElicitation(
  inputRequests: Record<string, unknown>,
  answers: Record<string, unknown>,
): { key: string; request: InputRequest } | { key: string; invalid: string } | undefined {
  for (const [key, value] of Object.entries(inputRequests)) {
    if (key in answers) continue;
    const request = value as { method?: string; params?: unknown } | null;
    if (request?.method !== 'elicitation/create') continue;
    const parsed = parseElicitation(request.params);
    return parsed.ok ? { key, request: parsed.request } : { key, invalid: parsed.reason };
  }
  return undefined;
}

/** True when two requests ask the same (mode, message, URL and schema). */
export function sameRequest(a: InputRequest, b: InputRequest): boolean {
  return (
    a.mode === b.mode &&
    a.message === b.message &&
    a.url === b.url &&
    JSON.stringify(a.requestedSchema) === JSON.stringify(b.requestedSchema)
  );
}

function withDefaults(
  content: Record<string, unknown> | undefined,
  schema: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  const properties = schema?.properties;
  if (typeof properties !== 'object' || properties === null) return content;
  const filled: Record<string, unknown> = { ...content };
  for (const [name, property] of Object.entries(
    properties as Record<string, { default?: unknown }>,
  )) {
    if (filled[name] === undefined && property?.default !== undefined)
      filled[name] = property.default;
  }
  return content === undefined && Object.keys(filled).length === 0 ? undefined : filled;
}
