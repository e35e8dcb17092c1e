import type { RJSFSchema, UiSchema } from '@rjsf/utils';

/** One choice of a select or multi-select field, as rjsf renders it (`{ const, title }`). */
export interface ElicitationChoice {
  const: string | number;
  title: string;
}

/**
 * What {@link normalizeElicitationSchema} returns: a schema rjsf renders (with its `uiSchema`),
 * or why the form cannot be shown.
 */
export type NormalizedElicitationSchema =
  | {
      ok: true;
      /** A flat object schema with only keywords the form understands. */
      schema: RJSFSchema;
      /** Widgets for the fields (checkboxes for multi-selects, placeholders for selects). */
      uiSchema: UiSchema;
      /**
       * Fields the form cannot show as such (nested objects, free lists, alternatives of
       * different shapes, …), by name, with why: each is a JSON text field in `schema` (a
       * string), whose text is parsed before the answer is sent.
       */
      jsonFields: Record<string, string>;
    }
  | {
      ok: false;
      /** A sentence for people, e.g. `field "address" is a nested object, …`. */
      reason: string;
    };

type SchemaNode = Record<string, unknown>;

/** String formats kept for validation: the four MCP allows, plus common ones ajv-formats knows. */
const KNOWN_FORMATS = new Set([
  'email',
  'uri',
  'date',
  'date-time',
  'time',
  'uuid',
  'hostname',
  'ipv4',
  'ipv6',
]);
const MAX_REF_HOPS = 32;

class UnsupportedSchema extends Error {}

/**
 * Turns an MCP elicitation `requestedSchema` (form mode) into a schema `@rjsf/core` renders well,
 * and decides whether it can be shown at all. Pure: the input is never modified.
 *
 * Covers the whole MCP `PrimitiveSchemaDefinition` set (spec 2025-11-25): strings (`title`,
 * `description`, `minLength`, `maxLength`, `format` email / uri / date / date-time), numbers and
 * integers (`minimum`, `maximum`), booleans, single-selects (plain `enum`, titled `oneOf` of
 * `{ const, title }`, legacy `enumNames`) — all normalised to `oneOf` of `{ const, title }` —,
 * multi-selects (`items.enum` or `items.anyOf` of `{ const, title }`, `minItems`, `maxItems`) —
 * normalised to a `uniqueItems` array of titled choices —, `default` values and `required`.
 *
 * Also accepts what real servers send outside the spec: nullable unions (`type: ['string',
 * 'null']`, `anyOf` / `oneOf` with a `null` branch; the field is then simply optional unless
 * required), local `$ref` into `$defs` / `definitions` (and pydantic's single-entry `allOf`),
 * fields without a `type` (a text input, or a select when they list choices), unknown keywords
 * (dropped). Required booleans without a default start unchecked as `false`, so an untouched
 * checkbox means "no". Defaults of the wrong type or outside the choices are dropped.
 *
 * A field a flat form cannot express (a nested object, a list of free values, alternatives of
 * different shapes, several types, a remote or dangling `$ref`, a reference cycle, `allOf`) is
 * never a reason to refuse the form: it becomes a JSON text field (listed in `jsonFields` with
 * why). Refused (with a reason) only a root that is not an object.
 *
 * @param requested The server's `requestedSchema`; `undefined` is an empty form (accept only).
 */
export function normalizeElicitationSchema(requested: unknown): NormalizedElicitationSchema {
  try {
    return normalizeRoot(requested);
  } catch (error) {
    if (error instanceof UnsupportedSchema) return { ok: false, reason: error.message };
    throw error;
  }
}

function normalizeRoot(requested: unknown): NormalizedElicitationSchema {
  if (requested === undefined) {
    return { ok: true, schema: { type: 'object', properties: {} }, uiSchema: {}, jsonFields: {} };
  }
  if (!isNode(requested)) throw new UnsupportedSchema('the server sent no valid schema.');
  const root = simplify(requested, requested, 'the schema');
  const type = root.type ?? (isNode(root.properties) ? 'object' : undefined);
  if (type !== 'object') {
    throw new UnsupportedSchema(
      `the schema asks for ${describeType(type)}, not a set of fields (an object).`,
    );
  }
  if (root.properties !== undefined && !isNode(root.properties)) {
    throw new UnsupportedSchema('the schema has no valid list of fields ("properties").');
  }
  const required = new Set(
    Array.isArray(root.required)
      ? root.required.filter((name): name is string => typeof name === 'string')
      : [],
  );
  const properties: Record<string, RJSFSchema> = {};
  const uiSchema: UiSchema = {};
  const jsonFields: Record<string, string> = {};
  for (const [name, raw] of Object.entries(root.properties ?? {})) {
    let field: { schema: RJSFSchema; ui?: UiSchema };
    try {
      field = normalizeField(name, raw, requested, required.has(name));
    } catch (error) {
      if (!(error instanceof UnsupportedSchema)) throw error;
      jsonFields[name] = error.message;
      field = jsonField(raw, error.message);
    }
    properties[name] = field.schema;
    if (field.ui !== undefined) uiSchema[name] = field.ui;
  }
  const schema: RJSFSchema = { type: 'object', properties };
  const kept = [...required].filter((name) => name in properties);
  if (kept.length > 0) schema.required = kept;
  return { ok: true, schema, uiSchema, jsonFields };
}

/**
 * The fallback for a field no widget shows: a text area for its value as JSON (pre-filled with
 * the default, if any), with the field's title and description and a hint saying why.
 */
function jsonField(raw: unknown, reason: string): { schema: RJSFSchema; ui: UiSchema } {
  const node = isNode(raw) ? raw : {};
  const schema: RJSFSchema = { ...describing(node), type: 'string' };
  if (node.default !== undefined) {
    try {
      schema.default = JSON.stringify(node.default, null, 2);
    } catch {
      // A default JSON cannot hold (none can arrive over the wire): no pre-fill.
    }
  }
  return {
    schema,
    ui: { 'ui:widget': 'textarea', 'ui:help': `Enter as JSON (${reason.replace(/\.$/, '')}).` },
  };
}

function normalizeField(
  name: string,
  raw: unknown,
  root: SchemaNode,
  required: boolean,
): { schema: RJSFSchema; ui?: UiSchema } {
  const where = `field "${name}"`;
  if (!isNode(raw)) throw new UnsupportedSchema(`${where} has no valid schema.`);
  const node = simplify(raw, root, where);
  const base = describing(node);
  const declared = node.type;
  const choices =
    declared === 'boolean' || declared === 'array' || declared === 'object'
      ? undefined
      : choicesOf(node, where);
  const type = declared ?? inferType(node, choices);

  if (type === 'object') {
    throw new UnsupportedSchema(
      `${where} is a nested object; only flat forms (text, numbers, yes/no, choices) can be shown.`,
    );
  }
  if (type === 'array') return normalizeMultiSelect(node, base, root, where);
  if (choices !== undefined) {
    const schema: RJSFSchema = {
      ...base,
      type: choiceType(type, choices, where),
      oneOf: choices.map((choice) => ({ const: choice.const, title: choice.title })),
    };
    if (choices.some((choice) => choice.const === node.default)) {
      schema.default = node.default as string | number;
    }
    return { schema, ui: { 'ui:placeholder': 'Choose…' } };
  }
  switch (type) {
    case 'string':
      return { schema: normalizeString(node, base) };
    case 'number':
    case 'integer':
      return { schema: normalizeNumber(node, base, type) };
    case 'boolean': {
      const schema: RJSFSchema = { ...base, type: 'boolean' };
      if (typeof node.default === 'boolean') schema.default = node.default;
      else if (required) schema.default = false;
      return { schema };
    }
    default:
      throw new UnsupportedSchema(`${where} asks for ${describeType(type)}, which no field shows.`);
  }
}

function normalizeString(node: SchemaNode, base: RJSFSchema): RJSFSchema {
  const schema: RJSFSchema = { ...base, type: 'string' };
  if (isCount(node.minLength)) schema.minLength = node.minLength;
  if (isCount(node.maxLength)) schema.maxLength = node.maxLength;
  if (typeof node.format === 'string' && KNOWN_FORMATS.has(node.format)) {
    schema.format = node.format;
  }
  if (typeof node.pattern === 'string' && isValidPattern(node.pattern)) {
    schema.pattern = node.pattern;
  }
  if (typeof node.default === 'string') schema.default = node.default;
  return schema;
}

function normalizeNumber(
  node: SchemaNode,
  base: RJSFSchema,
  type: 'number' | 'integer',
): RJSFSchema {
  const schema: RJSFSchema = { ...base, type };
  for (const key of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'] as const) {
    const value = node[key];
    if (typeof value === 'number' && Number.isFinite(value)) schema[key] = value;
  }
  if (typeof node.multipleOf === 'number' && node.multipleOf > 0) {
    schema.multipleOf = node.multipleOf;
  }
  const value = node.default;
  if (
    typeof value === 'number' &&
    Number.isFinite(value) &&
    (type === 'number' || Number.isInteger(value))
  ) {
    schema.default = value;
  }
  return schema;
}

function normalizeMultiSelect(
  node: SchemaNode,
  base: RJSFSchema,
  root: SchemaNode,
  where: string,
): { schema: RJSFSchema; ui: UiSchema } {
  const items = isNode(node.items) ? simplify(node.items, root, `${where} (its items)`) : undefined;
  const choices = items === undefined ? undefined : choicesOf(items, where);
  if (choices === undefined) {
    throw new UnsupportedSchema(
      `${where} is a list of free values; only lists of fixed choices can be shown.`,
    );
  }
  const itemType = choiceType(items?.type ?? inferType(items ?? {}, choices), choices, where);
  const schema: RJSFSchema = {
    ...base,
    type: 'array',
    uniqueItems: true,
    items: {
      type: itemType,
      oneOf: choices.map((choice) => ({ const: choice.const, title: choice.title })),
    },
  };
  if (isCount(node.minItems)) schema.minItems = node.minItems;
  if (isCount(node.maxItems)) schema.maxItems = node.maxItems;
  if (Array.isArray(node.default)) {
    const allowed = new Set(choices.map((choice) => choice.const));
    const unique = [...new Set(node.default)];
    const picked = unique.filter((value) => allowed.has(value as string));
    if (picked.length === unique.length) schema.default = picked as string[];
  }
  return { schema, ui: { 'ui:widget': 'checkboxes' } };
}

/**
 * Resolves local `$ref`s and single-entry `allOf`, then removes `null` from the node's type or
 * alternatives. Sibling keywords (title, description, default) win over the referenced schema.
 */
function simplify(node: SchemaNode, root: SchemaNode, where: string): SchemaNode {
  let current = dereference(node, root, where);
  if (Array.isArray(current.type)) {
    const types = current.type.filter((type) => type !== 'null');
    if (types.length !== 1) {
      throw new UnsupportedSchema(
        types.length === 0
          ? `${where} only accepts null.`
          : `${where} accepts several types (${types.map(String).join(', ')}).`,
      );
    }
    current = { ...current, type: types[0] };
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const alternatives = current[key];
    if (!Array.isArray(alternatives)) continue;
    const resolved = alternatives.map((alternative) =>
      isNode(alternative) ? dereference(alternative, root, where) : {},
    );
    const kept = resolved.filter((alternative) => !isNull(alternative));
    if (kept.length === resolved.length) {
      current = { ...current, [key]: resolved };
      continue;
    }
    const { [key]: _dropped, ...outer } = current;
    const [only] = kept;
    if (kept.length === 1 && only !== undefined && !('const' in only)) {
      // `anyOf: [X, {type: null}]`: the field is X, optional. Outer title/description win.
      current = simplify({ ...only, ...outer }, root, where);
    } else {
      current = { ...outer, [key]: kept };
    }
  }
  if (current.default === null) {
    const { default: _null, ...rest } = current;
    current = rest;
  }
  return current;
}

function dereference(node: SchemaNode, root: SchemaNode, where: string): SchemaNode {
  let current = node;
  for (let hops = 0; ; hops += 1) {
    if (hops > MAX_REF_HOPS) throw new UnsupportedSchema(`${where} refers to itself in a loop.`);
    if (typeof current.$ref === 'string') {
      const { $ref: reference, ...siblings } = current;
      current = { ...resolvePointer(root, reference, where), ...siblings };
    } else if (
      Array.isArray(current.allOf) &&
      current.allOf.length === 1 &&
      isNode(current.allOf[0])
    ) {
      const {
        allOf: [only],
        ...siblings
      } = current as { allOf: [SchemaNode] } & SchemaNode;
      current = { ...only, ...siblings };
    } else if (current.allOf !== undefined) {
      throw new UnsupportedSchema(`${where} combines several schemas (allOf).`);
    } else {
      return current;
    }
  }
}

function resolvePointer(root: SchemaNode, reference: string, where: string): SchemaNode {
  if (!reference.startsWith('#')) {
    throw new UnsupportedSchema(`${where} refers to an external schema (${reference}).`);
  }
  const pointer = reference.slice(1);
  if (pointer !== '' && !pointer.startsWith('/')) {
    throw new UnsupportedSchema(
      `${where} refers to an anchor (${reference}), which is not supported.`,
    );
  }
  let target: unknown = root;
  for (const segment of pointer === '' ? [] : pointer.slice(1).split('/')) {
    const key = decodeURIComponent(segment).replaceAll('~1', '/').replaceAll('~0', '~');
    target = isNode(target) && Object.hasOwn(target, key) ? target[key] : undefined;
  }
  if (!isNode(target)) {
    throw new UnsupportedSchema(
      `${where} refers to ${reference}, which the schema does not define.`,
    );
  }
  return target;
}

/** The choices a node lists (`enum` + `enumNames`, `oneOf` / `anyOf` of consts, `const`). */
function choicesOf(node: SchemaNode, where: string): ElicitationChoice[] | undefined {
  let choices: { value: unknown; title: unknown }[] | undefined;
  if (Array.isArray(node.enum)) {
    const names = Array.isArray(node.enumNames) ? node.enumNames : [];
    choices = node.enum.map((value, index) => ({ value, title: names[index] }));
  } else {
    const alternatives = node.oneOf ?? node.anyOf;
    if (Array.isArray(alternatives)) {
      if (!alternatives.every((alternative) => isNode(alternative) && 'const' in alternative)) {
        throw new UnsupportedSchema(`${where} offers alternatives of different shapes.`);
      }
      choices = (alternatives as SchemaNode[]).map((alternative) => ({
        value: alternative.const,
        title: alternative.title,
      }));
    } else if ('const' in node) {
      choices = [{ value: node.const, title: node.title }];
    }
  }
  if (choices === undefined) return undefined;
  const kept = choices.filter((choice) => choice.value !== null);
  if (kept.length === 0) throw new UnsupportedSchema(`${where} offers no choices.`);
  return kept.map(({ value, title }) => {
    if (typeof value !== 'string' && !(typeof value === 'number' && Number.isFinite(value))) {
      throw new UnsupportedSchema(`${where} offers a choice that is not text or a number.`);
    }
    return {
      const: value,
      title: typeof title === 'string' && title !== '' ? title : String(value),
    };
  });
}

function choiceType(
  declared: unknown,
  choices: readonly ElicitationChoice[],
  where: string,
): 'string' | 'number' | 'integer' {
  const allStrings = choices.every((choice) => typeof choice.const === 'string');
  const allNumbers = choices.every((choice) => typeof choice.const === 'number');
  if (allStrings && (declared === 'string' || declared === undefined)) return 'string';
  if (allNumbers && (declared === 'number' || declared === 'integer' || declared === undefined)) {
    return declared === 'integer' ? 'integer' : 'number';
  }
  throw new UnsupportedSchema(`${where} mixes choices and types that do not match.`);
}

function inferType(node: SchemaNode, choices: readonly ElicitationChoice[] | undefined): unknown {
  if (choices !== undefined) {
    return choices.every((choice) => typeof choice.const === 'number') ? 'number' : 'string';
  }
  if (node.items !== undefined) return 'array';
  if (node.properties !== undefined) return 'object';
  return 'string';
}

/** Title and description, when they are strings. */
function describing(node: SchemaNode): RJSFSchema {
  const schema: RJSFSchema = {};
  if (typeof node.title === 'string') schema.title = node.title;
  if (typeof node.description === 'string') schema.description = node.description;
  return schema;
}

function describeType(type: unknown): string {
  if (type === undefined) return 'no type';
  if (typeof type === 'string') return `a value of type "${type}"`;
  return 'an unknown type';
}

function isNull(node: SchemaNode): boolean {
  return node.type === 'null' || ('const' in node && node.const === null);
}

function isNode(value: unknown): value is SchemaNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function isValidPattern(pattern: string): boolean {
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}
