// @vitest-environment node
import validator from '@rjsf/validator-ajv8';
import { describe, expect, it } from 'vitest';
import { normalizeElicitationSchema } from './normalize-elicitation-schema.ts';

function normalized(requested: unknown) {
  const result = normalizeElicitationSchema(requested);
  if (!result.ok) throw new Error(`expected a renderable schema, got: ${result.reason}`);
  return result;
}

function reason(requested: unknown): string {
  const result = normalizeElicitationSchema(requested);
  if (result.ok) throw new Error('expected the schema to be refused');
  return result.reason;
}

const object = (properties: Record<string, unknown>, required?: string[]) => ({
  type: 'object',
  properties,
  ...(required === undefined ? {} : { required }),
});

describe('normalizeElicitationSchema', () => {
  it('keeps the spec keywords of strings, numbers and booleans and drops the rest', () => {
    const { schema } = normalized({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      title: 'Root title',
      ...object(
        {
          name: {
            type: 'string',
            title: 'Name',
            description: 'Your name',
            minLength: 2,
            maxLength: 40,
            default: 'Ada',
            'x-vendor': true,
          },
          email: { type: 'string', format: 'email' },
          site: { type: 'string', format: 'uri' },
          born: { type: 'string', format: 'date' },
          at: { type: 'string', format: 'date-time' },
          odd: { type: 'string', format: 'made-up-format' },
          age: { type: 'integer', minimum: 0, maximum: 150, default: 30 },
          ratio: { type: 'number', minimum: 0.5, maximum: 2.5 },
          agree: { type: 'boolean', title: 'Agree', default: true },
        },
        ['name', 'age'],
      ),
    });
    expect(schema).toEqual({
      type: 'object',
      required: ['name', 'age'],
      properties: {
        name: {
          type: 'string',
          title: 'Name',
          description: 'Your name',
          minLength: 2,
          maxLength: 40,
          default: 'Ada',
        },
        email: { type: 'string', format: 'email' },
        site: { type: 'string', format: 'uri' },
        born: { type: 'string', format: 'date' },
        at: { type: 'string', format: 'date-time' },
        odd: { type: 'string' },
        age: { type: 'integer', minimum: 0, maximum: 150, default: 30 },
        ratio: { type: 'number', minimum: 0.5, maximum: 2.5 },
        agree: { type: 'boolean', title: 'Agree', default: true },
      },
    });
  });

  it('normalises plain enum, titled oneOf and legacy enumNames to titled oneOf choices', () => {
    const { schema, uiSchema } = normalized(
      object({
        plain: { type: 'string', enum: ['s', 'm'], default: 'm' },
        titled: {
          type: 'string',
          oneOf: [
            { const: 'eu', title: 'Europe' },
            { const: 'us', title: 'United States' },
          ],
        },
        legacy: { type: 'string', enum: ['a', 'b'], enumNames: ['Alpha', 'Beta'] },
      }),
    );
    expect(schema.properties).toEqual({
      plain: {
        type: 'string',
        oneOf: [
          { const: 's', title: 's' },
          { const: 'm', title: 'm' },
        ],
        default: 'm',
      },
      titled: {
        type: 'string',
        oneOf: [
          { const: 'eu', title: 'Europe' },
          { const: 'us', title: 'United States' },
        ],
      },
      legacy: {
        type: 'string',
        oneOf: [
          { const: 'a', title: 'Alpha' },
          { const: 'b', title: 'Beta' },
        ],
      },
    });
    expect(uiSchema.plain).toEqual({ 'ui:placeholder': 'Choose…' });
  });

  it('normalises both multi-select shapes to unique titled checkboxes with item limits', () => {
    const { schema, uiSchema } = normalized(
      object({
        colours: {
          type: 'array',
          minItems: 1,
          maxItems: 2,
          items: { type: 'string', enum: ['red', 'green', 'blue'] },
          default: ['red', 'red'],
        },
        regions: {
          type: 'array',
          items: {
            anyOf: [
              { const: 'eu', title: 'Europe' },
              { const: 'us', title: 'United States' },
            ],
          },
        },
      }),
    );
    expect(schema.properties?.colours).toEqual({
      type: 'array',
      uniqueItems: true,
      minItems: 1,
      maxItems: 2,
      items: {
        type: 'string',
        oneOf: [
          { const: 'red', title: 'red' },
          { const: 'green', title: 'green' },
          { const: 'blue', title: 'blue' },
        ],
      },
      default: ['red'],
    });
    expect(schema.properties?.regions).toMatchObject({
      type: 'array',
      uniqueItems: true,
      items: {
        oneOf: [
          { const: 'eu', title: 'Europe' },
          { const: 'us', title: 'United States' },
        ],
      },
    });
    expect(uiSchema).toEqual({
      colours: { 'ui:widget': 'checkboxes' },
      regions: { 'ui:widget': 'checkboxes' },
    });
  });

  it('drops defaults of the wrong type or outside the choices', () => {
    const { schema } = normalized(
      object({
        size: { type: 'string', enum: ['s', 'm'], default: 'xl' },
        count: { type: 'integer', default: 1.5 },
        name: { type: 'string', default: 3 },
        tags: { type: 'array', items: { enum: ['a'] }, default: ['a', 'zzz'] },
      }),
    );
    for (const field of Object.values(schema.properties ?? {})) {
      expect(field).not.toHaveProperty('default');
    }
  });

  it('starts required booleans without a default as false', () => {
    const { schema } = normalized(
      object({ ok: { type: 'boolean' }, maybe: { type: 'boolean' } }, ['ok']),
    );
    expect(schema.properties?.ok).toEqual({ type: 'boolean', default: false });
    expect(schema.properties?.maybe).toEqual({ type: 'boolean' });
  });

  it('unwraps nullable unions: type arrays and anyOf / oneOf with a null branch', () => {
    const { schema } = normalized(
      object(
        {
          nickname: { type: ['string', 'null'], title: 'Nickname', default: null },
          age: { anyOf: [{ type: 'integer', minimum: 0 }, { type: 'null' }], title: 'Age' },
          size: {
            oneOf: [
              { const: 's', title: 'Small' },
              { const: 'l', title: 'Large' },
              { type: 'null' },
            ],
          },
        },
        ['nickname'],
      ),
    );
    expect(schema.properties).toEqual({
      nickname: { type: 'string', title: 'Nickname' },
      age: { type: 'integer', title: 'Age', minimum: 0 },
      size: {
        type: 'string',
        oneOf: [
          { const: 's', title: 'Small' },
          { const: 'l', title: 'Large' },
        ],
      },
    });
    expect(schema.required).toEqual(['nickname']);
  });

  it('resolves local $ref into $defs and definitions, with sibling keywords winning', () => {
    const { schema } = normalized({
      type: 'object',
      $defs: { Colour: { type: 'string', enum: ['red', 'blue'], title: 'Colour' } },
      definitions: { 'Pet/Kind': { type: 'string', oneOf: [{ const: 'cat', title: 'Cat' }] } },
      properties: {
        colour: { $ref: '#/$defs/Colour', default: 'blue', title: 'Favourite colour' },
        maybeColour: { anyOf: [{ $ref: '#/$defs/Colour' }, { type: 'null' }] },
        pet: { allOf: [{ $ref: '#/definitions/Pet~1Kind' }], description: 'Your pet' },
      },
    });
    expect(schema.properties?.colour).toEqual({
      type: 'string',
      title: 'Favourite colour',
      oneOf: [
        { const: 'red', title: 'red' },
        { const: 'blue', title: 'blue' },
      ],
      default: 'blue',
    });
    expect(schema.properties?.maybeColour).toMatchObject({ title: 'Colour', type: 'string' });
    expect(schema.properties?.pet).toEqual({
      type: 'string',
      description: 'Your pet',
      oneOf: [{ const: 'cat', title: 'Cat' }],
    });
  });

  it('treats a missing schema as an empty form and a field without type as text', () => {
    expect(normalized(undefined).schema).toEqual({ type: 'object', properties: {} });
    expect(normalized({ properties: { note: { title: 'Note' } } }).schema.properties).toEqual({
      note: { type: 'string', title: 'Note' },
    });
  });

  it.each([
    [{ type: 'string' }, /not a set of fields/],
    ['nope', /no valid schema/],
  ])('refuses a schema that is not an object (%#)', (schema, expected) => {
    expect(reason(schema)).toMatch(expected);
  });

  it.each([
    [
      object({ address: { type: 'object', properties: { city: { type: 'string' } } } }),
      /field "address" is a nested object/,
    ],
    [
      object({ lines: { type: 'array', items: { type: 'string' } } }),
      /field "lines" is a list of free values/,
    ],
    [
      object({ x: { $ref: 'https://example.com/schema.json' } }),
      /external schema \(https:\/\/example.com\/schema.json\)/,
    ],
    [object({ x: { $ref: '#/$defs/Missing' } }), /does not define/],
    [
      {
        type: 'object',
        $defs: { A: { $ref: '#/$defs/A' } },
        properties: { x: { $ref: '#/$defs/A' } },
      },
      /loop/,
    ],
    [object({ x: { type: ['string', 'number'] } }), /several types/],
    [object({ x: { anyOf: [{ type: 'string' }, { type: 'number' }] } }), /different shapes/],
    [object({ x: { allOf: [{ type: 'string' }, { minLength: 1 }] } }), /allOf/],
    [object({ x: { enum: [{ a: 1 }] } }), /not text or a number/],
  ])('shows a field no widget can as a JSON text field, saying why (%#)', (schema, expected) => {
    const result = normalized(schema);
    const [name, why] = Object.entries(result.jsonFields)[0] ?? [];
    expect(why).toMatch(expected);
    expect(result.schema.properties?.[name ?? '']).toMatchObject({ type: 'string' });
    expect(result.uiSchema[name ?? '']).toMatchObject({ 'ui:widget': 'textarea' });
  });

  it('keeps the other fields as they are next to a JSON field, which gets its default as JSON', () => {
    const result = normalized(
      object({
        name: { type: 'string', title: 'Name' },
        scores: {
          type: 'object',
          title: 'Scores',
          additionalProperties: { type: 'number' },
          default: { taste: 5 },
        },
      }),
    );
    expect(result.schema.properties).toEqual({
      name: { type: 'string', title: 'Name' },
      scores: { type: 'string', title: 'Scores', default: JSON.stringify({ taste: 5 }, null, 2) },
    });
    expect(Object.keys(result.jsonFields)).toEqual(['scores']);
    expect(result.uiSchema.scores?.['ui:help']).toMatch(
      /^Enter as JSON \(field "scores" is a nested object/,
    );
  });

  it('renders what servers in the wild send: nullable enums, titled selects, formats, defaults, $ref', () => {
    const result = normalized({
      type: 'object',
      $defs: { color: { type: 'string', enum: ['red', 'green'] } },
      properties: {
        size: { title: 'Size', anyOf: [{ type: 'string', enum: ['S', 'M'] }, { type: 'null' }] },
        tier: { type: ['string', 'null'], enum: ['a', 'b', null], default: 'b' },
        note: { type: ['string', 'null'], default: null },
        plan: {
          oneOf: [
            { const: 'free', title: 'Free' },
            { const: 'pro', title: 'Pro' },
          ],
          default: 'free',
        },
        extras: {
          type: 'array',
          items: {
            anyOf: [
              { const: 'wifi', title: 'Wi-Fi' },
              { const: 'parking', title: 'Parking' },
            ],
          },
          default: ['wifi'],
        },
        email: { type: 'string', format: 'email' },
        when: { type: 'string', format: 'date-time' },
        site: { type: 'string', format: 'uri', default: 'https://example.com' },
        color: { $ref: '#/$defs/color', default: 'green' },
      },
      required: ['email'],
    });
    expect(result.jsonFields).toEqual({});
    expect(result.schema.properties).toEqual({
      size: {
        title: 'Size',
        type: 'string',
        oneOf: [
          { const: 'S', title: 'S' },
          { const: 'M', title: 'M' },
        ],
      },
      tier: {
        type: 'string',
        oneOf: [
          { const: 'a', title: 'a' },
          { const: 'b', title: 'b' },
        ],
        default: 'b',
      },
      note: { type: 'string' },
      plan: {
        type: 'string',
        oneOf: [
          { const: 'free', title: 'Free' },
          { const: 'pro', title: 'Pro' },
        ],
        default: 'free',
      },
      extras: {
        type: 'array',
        uniqueItems: true,
        items: {
          type: 'string',
          oneOf: [
            { const: 'wifi', title: 'Wi-Fi' },
            { const: 'parking', title: 'Parking' },
          ],
        },
        default: ['wifi'],
      },
      email: { type: 'string', format: 'email' },
      when: { type: 'string', format: 'date-time' },
      site: { type: 'string', format: 'uri', default: 'https://example.com' },
      color: {
        type: 'string',
        oneOf: [
          { const: 'red', title: 'red' },
          { const: 'green', title: 'green' },
        ],
        default: 'green',
      },
    });
  });

  it('produces schemas the ajv8 validator accepts, and validates answers against them', () => {
    const { schema } = normalized({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      ...object(
        {
          email: { type: 'string', format: 'email' },
          age: { type: ['integer', 'null'], minimum: 18 },
          tags: { type: 'array', items: { anyOf: [{ const: 'a', title: 'A' }] }, minItems: 1 },
          size: { type: 'string', enum: ['s', 'm'], enumNames: ['Small', 'Medium'] },
        },
        ['email', 'tags'],
      ),
    });
    const valid = validator.validateFormData({ email: 'a@b.co', tags: ['a'], size: 'm' }, schema);
    expect(valid.errors).toEqual([]);
    const invalid = validator.validateFormData(
      { email: 'nope', age: 3, tags: [], size: 'x' },
      schema,
    );
    expect([...new Set(invalid.errors.map((error) => error.property))].sort()).toEqual(
      ['.age', '.email', '.size', '.tags'].sort(),
    );
  });
});
