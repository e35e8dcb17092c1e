import type { JsonSchema } from '../vocabulary/interrupts.ts';

/** What {@link toStrictSchema} returns: the converted schema, or why it cannot be converted. */
export type StrictSchemaResult = { schema: JsonSchema } | { error: string };

/** Keywords OpenAI strict mode rejects and that have no strict equivalent. */
const UNSUPPORTED_KEYWORDS = [
  'patternProperties',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
  'dependentRequired',
  'dependentSchemas',
  'dependencies',
  'allOf',
  'not',
  'if',
  'then',
  'else',
] as const;

/** Thrown inside the conversion; turned into `{ error }` at the top. */
class UnconvertibleSchemaError extends Error {}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typesOf(schema: Record<string, unknown>): string[] {
  const type = schema['type'];
  if (typeof type === 'string') return [type];
  if (Array.isArray(type))
    return type.filter((entry): entry is string => typeof entry === 'string');
  return [];
}

function isObjectSchema(schema: Record<string, unknown>): boolean {
  const types = typesOf(schema);
  if (types.includes('object')) return true;
  return types.length === 0 && isObject(schema['properties']);
}

function isNullable(schema: Record<string, unknown>): boolean {
  if (typesOf(schema).includes('null')) return true;
  const anyOf = schema['anyOf'];
  return Array.isArray(anyOf) && anyOf.some((branch) => isObject(branch) && isNullable(branch));
}

/** The schema that also accepts `null` (as `type: [t, 'null']` or an `anyOf` with null). */
function makeNullable(schema: Record<string, unknown>): Record<string, unknown> {
  if (isNullable(schema)) return schema;
  const type = schema['type'];
  if ((typeof type === 'string' || Array.isArray(type)) && !('const' in schema)) {
    const nullable: Record<string, unknown> = { ...schema, type: [...typesOf(schema), 'null'] };
    const values = schema['enum'];
    if (Array.isArray(values) && !values.includes(null)) nullable['enum'] = [...values, null];
    return nullable;
  }
  const anyOf = schema['anyOf'];
  if (Array.isArray(anyOf)) return { ...schema, anyOf: [...anyOf, { type: 'null' }] };
  return { anyOf: [schema, { type: 'null' }] };
}

function convert(node: unknown, path: string): Record<string, unknown> {
  if (!isObject(node)) {
    throw new UnconvertibleSchemaError(
      `${path} is not a schema object (boolean schemas cannot be strict).`,
    );
  }
  for (const keyword of UNSUPPORTED_KEYWORDS) {
    if (keyword in node) {
      throw new UnconvertibleSchemaError(
        `${path} uses "${keyword}", which strict mode does not support.`,
      );
    }
  }
  const result: Record<string, unknown> = { ...node };
  // Informational only, and rejected by strict mode; the tool keeps its own schema's defaults.
  delete result['default'];

  if (isObjectSchema(node)) {
    const additional = node['additionalProperties'];
    if (additional !== undefined && additional !== false) {
      throw new UnconvertibleSchemaError(
        `${path} allows additional properties (additionalProperties: ${JSON.stringify(additional)}); strict objects need a fixed set of properties.`,
      );
    }
    const properties = node['properties'] ?? {};
    if (!isObject(properties)) {
      throw new UnconvertibleSchemaError(`${path}/properties is not an object.`);
    }
    const required = new Set(
      Array.isArray(node['required'])
        ? node['required'].filter((name): name is string => typeof name === 'string')
        : [],
    );
    const converted: Record<string, unknown> = {};
    for (const [name, property] of Object.entries(properties)) {
      const strict = convert(property, `${path}/properties/${name}`);
      converted[name] = required.has(name) ? strict : makeNullable(strict);
    }
    if (typesOf(node).length === 0) result['type'] = 'object';
    result['properties'] = converted;
    result['required'] = Object.keys(converted);
    result['additionalProperties'] = false;
  }

  const items = node['items'];
  if (Array.isArray(items)) {
    result['items'] = items.map((item, index) => convert(item, `${path}/items/${index}`));
  } else if (items !== undefined) {
    result['items'] = convert(items, `${path}/items`);
  }
  const prefixItems = node['prefixItems'];
  if (Array.isArray(prefixItems)) {
    result['prefixItems'] = prefixItems.map((item, index) =>
      convert(item, `${path}/prefixItems/${index}`),
    );
  }
  if ('anyOf' in node && 'oneOf' in node) {
    throw new UnconvertibleSchemaError(`${path} combines "anyOf" and "oneOf".`);
  }
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = node[keyword];
    if (branches === undefined) continue;
    if (!Array.isArray(branches)) {
      throw new UnconvertibleSchemaError(`${path}/${keyword} is not an array.`);
    }
    // Strict mode knows only anyOf; every value valid under oneOf is valid under anyOf, and the
    // tool still validates its arguments against its own schema.
    delete result['oneOf'];
    result['anyOf'] = branches.map((branch, index) =>
      convert(branch, `${path}/${keyword}/${index}`),
    );
  }
  for (const keyword of ['$defs', 'definitions'] as const) {
    const definitions = node[keyword];
    if (definitions === undefined) continue;
    if (!isObject(definitions)) {
      throw new UnconvertibleSchemaError(`${path}/${keyword} is not an object.`);
    }
    result[keyword] = Object.fromEntries(
      Object.entries(definitions).map(([name, definition]) => [
        name,
        convert(definition, `${path}/${keyword}/${name}`),
      ]),
    );
  }
  return result;
}

/**
 * Converts a tool's JSON Schema for OpenAI strict function calling (Structured Outputs), where
 * the model's arguments are guaranteed to match the schema:
 *
 * - every object schema gets `additionalProperties: false`, `properties` (`{}` when missing) and
 *   all its properties in `required`;
 * - a property that was optional becomes nullable (`type: [t, 'null']`, with `null` added to an
 *   `enum`, or an `anyOf` with `{ type: 'null' }`); already nullable ones (`["string", "null"]`)
 *   are kept as they are. Use {@link fromStrictArguments} to turn the model's `null`s back into
 *   absent properties;
 * - the conversion recurses into `properties`, `items` / `prefixItems` (objects inside arrays),
 *   `anyOf`, `$defs` / `definitions` (so `$ref` targets are converted; `$ref`s themselves are
 *   kept); a nested `oneOf` becomes `anyOf`; `default` and the root's `$schema` are dropped.
 *
 * Pure: the input is not changed.
 *
 * @returns `{ schema }`, or `{ error }` naming the first part that cannot be strict: a root that
 *   is not an object schema (e.g. a `oneOf` / `anyOf` union, a `$ref`, a string), an object with
 *   `additionalProperties` other than `false` (a schema or `true`), `patternProperties`,
 *   `propertyNames`, `allOf`, `not`, `if` / `then` / `else`, `dependentRequired` /
 *   `dependentSchemas`, `unevaluated*`, or a boolean sub-schema.
 */
export function toStrictSchema(schema: JsonSchema): StrictSchemaResult {
  if (!isObject(schema)) return { error: 'The schema is not a JSON object.' };
  for (const keyword of ['oneOf', 'anyOf', 'allOf', '$ref'] as const) {
    if (keyword in schema) {
      return {
        error: `The root uses "${keyword}"; a strict schema's root must be a plain object schema.`,
      };
    }
  }
  if (!isObjectSchema(schema)) {
    return { error: 'The root is not an object schema (type "object"); strict mode needs one.' };
  }
  try {
    const converted = convert(schema, '#');
    delete converted['$schema'];
    return { schema: converted };
  } catch (error) {
    if (error instanceof UnconvertibleSchemaError) return { error: error.message };
    throw error;
  }
}

function resolveReference(
  root: Record<string, unknown>,
  schema: Record<string, unknown>,
): Record<string, unknown> {
  const reference = schema['$ref'];
  if (typeof reference !== 'string' || !reference.startsWith('#/')) return schema;
  let target: unknown = root;
  for (const segment of reference.slice(2).split('/')) {
    const key = segment.replaceAll('~1', '/').replaceAll('~0', '~');
    target = isObject(target) ? target[key] : undefined;
  }
  return isObject(target) ? target : schema;
}

function acceptsNull(root: Record<string, unknown>, schema: Record<string, unknown>): boolean {
  const resolved = resolveReference(root, schema);
  if (typesOf(resolved).includes('null')) return true;
  if (Array.isArray(resolved['enum']) && resolved['enum'].includes(null)) return true;
  if ('const' in resolved && resolved['const'] === null) return true;
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = resolved[keyword];
    if (
      Array.isArray(branches) &&
      branches.some((branch) => isObject(branch) && acceptsNull(root, branch))
    ) {
      return true;
    }
  }
  return false;
}

/** Removes, in place, the `null`s the strict schema allowed where `original` had optionals. */
function stripNulls(
  root: Record<string, unknown>,
  original: Record<string, unknown>,
  value: unknown,
  depth: number,
): boolean {
  if (depth > 64) return false;
  const schema = resolveReference(root, original);
  let changed = false;
  if (isObject(value) && isObject(schema['properties'])) {
    const properties = schema['properties'];
    const required = Array.isArray(schema['required']) ? schema['required'] : [];
    for (const [name, property] of Object.entries(properties)) {
      if (!isObject(property) || !(name in value)) continue;
      if (value[name] === null && !required.includes(name) && !acceptsNull(root, property)) {
        delete value[name];
        changed = true;
      } else if (stripNulls(root, property, value[name], depth + 1)) {
        changed = true;
      }
    }
  }
  const items = schema['items'];
  if (Array.isArray(value) && isObject(items)) {
    for (const entry of value) {
      if (stripNulls(root, items, entry, depth + 1)) changed = true;
    }
  }
  return changed;
}

/**
 * Undoes what {@link toStrictSchema} did to optional properties: parses the model's `arguments`
 * (JSON text produced under the strict schema) and drops each `null` where `originalSchema` had
 * an optional property that does not itself accept `null`, recursing into nested objects and
 * arrays (and `$ref`s into the root's `$defs`). The tool then validates and sees the arguments as
 * its own schema describes them.
 *
 * @param originalSchema The tool's own (non-strict) schema.
 * @param argumentsText The raw arguments JSON text.
 * @returns The arguments text, re-serialised only when something was dropped; unchanged (also
 *   when it is not valid JSON, which the agent reports to the model).
 */
export function fromStrictArguments(originalSchema: JsonSchema, argumentsText: string): string {
  let value: unknown;
  try {
    value = JSON.parse(argumentsText);
  } catch {
    return argumentsText;
  }
  return stripNulls(originalSchema, originalSchema, value, 0)
    ? JSON.stringify(value)
    : argumentsText;
}
