import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fromStrictArguments, toStrictSchema } from './strict-schema.ts';

function converted(schema: Record<string, unknown>): Record<string, unknown> {
  const result = toStrictSchema(schema);
  if ('error' in result) throw new Error(`expected a conversion, got: ${result.error}`);
  return result.schema;
}

function failed(schema: unknown): string {
  const result = toStrictSchema(schema as Record<string, unknown>);
  if (!('error' in result)) throw new Error('expected an error');
  return result.error;
}

describe('toStrictSchema', () => {
  it('closes objects, requires every property and makes optional ones nullable', () => {
    const schema = {
      type: 'object',
      properties: {
        city: { type: 'string', description: 'City name.' },
        days: { type: 'integer', minimum: 1 },
        unit: { type: 'string', enum: ['c', 'f'] },
      },
      required: ['city'],
    };
    expect(converted(schema)).toEqual({
      type: 'object',
      properties: {
        city: { type: 'string', description: 'City name.' },
        days: { type: ['integer', 'null'], minimum: 1 },
        unit: { type: ['string', 'null'], enum: ['c', 'f', null] },
      },
      required: ['city', 'days', 'unit'],
      additionalProperties: false,
    });
    // Pure: the input is untouched.
    expect(schema.required).toEqual(['city']);
    expect(schema).not.toHaveProperty('additionalProperties');
  });

  it('keeps properties that are already nullable as they are', () => {
    expect(
      converted({
        type: 'object',
        properties: {
          note: { type: ['string', 'null'] },
          choice: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        },
      }),
    ).toEqual({
      type: 'object',
      properties: {
        note: { type: ['string', 'null'] },
        choice: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      },
      required: ['note', 'choice'],
      additionalProperties: false,
    });
  });

  it('wraps optional properties without a type (const, $ref) in an anyOf with null', () => {
    const result = converted({
      type: 'object',
      properties: { kind: { const: 'x' }, shape: { $ref: '#/$defs/shape' } },
      $defs: { shape: { type: 'object', properties: { sides: { type: 'integer' } } } },
    });
    expect(result['properties']).toEqual({
      kind: { anyOf: [{ const: 'x' }, { type: 'null' }] },
      shape: { anyOf: [{ $ref: '#/$defs/shape' }, { type: 'null' }] },
    });
  });

  it('gives an object without properties an empty properties map', () => {
    expect(converted({ type: 'object' })).toEqual({
      type: 'object',
      properties: {},
      required: [],
      additionalProperties: false,
    });
    expect(
      (
        converted({
          type: 'object',
          properties: { options: { type: 'object' } },
          required: ['options'],
        })['properties'] as Record<string, unknown>
      )['options'],
    ).toEqual({ type: 'object', properties: {}, required: [], additionalProperties: false });
  });

  it('recurses into nested objects, objects inside arrays and anyOf branches', () => {
    const result = converted({
      type: 'object',
      properties: {
        owner: {
          type: 'object',
          properties: { name: { type: 'string' }, email: { type: 'string' } },
          required: ['name'],
        },
        rows: {
          type: 'array',
          items: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
        },
        target: {
          anyOf: [{ type: 'object', properties: { url: { type: 'string' } } }, { type: 'string' }],
        },
      },
      required: ['owner', 'rows', 'target'],
    });
    expect(result['properties']).toEqual({
      owner: {
        type: 'object',
        properties: { name: { type: 'string' }, email: { type: ['string', 'null'] } },
        required: ['name', 'email'],
        additionalProperties: false,
      },
      rows: {
        type: 'array',
        items: {
          type: 'object',
          properties: { id: { type: 'string' } },
          required: ['id'],
          additionalProperties: false,
        },
      },
      target: {
        anyOf: [
          {
            type: 'object',
            properties: { url: { type: ['string', 'null'] } },
            required: ['url'],
            additionalProperties: false,
          },
          { type: 'string' },
        ],
      },
    });
  });

  it('keeps $ref and converts the $defs they point to', () => {
    const result = converted({
      type: 'object',
      properties: { node: { $ref: '#/$defs/node' } },
      required: ['node'],
      $defs: {
        node: {
          type: 'object',
          properties: { value: { type: 'number' }, next: { $ref: '#/$defs/node' } },
          required: ['value'],
        },
      },
    });
    expect(result['properties']).toEqual({ node: { $ref: '#/$defs/node' } });
    expect(result['$defs']).toEqual({
      node: {
        type: 'object',
        properties: {
          value: { type: 'number' },
          next: { anyOf: [{ $ref: '#/$defs/node' }, { type: 'null' }] },
        },
        required: ['value', 'next'],
        additionalProperties: false,
      },
    });
  });

  it('turns a nested oneOf into anyOf and drops defaults and the root $schema', () => {
    const schema = z.toJSONSchema(
      z.object({
        unit: z.enum(['c', 'f']).default('c'),
        target: z.discriminatedUnion('kind', [
          z.object({ kind: z.literal('city'), name: z.string() }),
          z.object({ kind: z.literal('point'), lat: z.number(), lon: z.number() }),
        ]),
      }),
      { io: 'input' },
    ) as Record<string, unknown>;
    const result = converted(schema);
    expect(result).not.toHaveProperty('$schema');
    const properties = result['properties'] as Record<string, Record<string, unknown>>;
    expect(properties['unit']).toEqual({ type: ['string', 'null'], enum: ['c', 'f', null] });
    expect(properties['target']).not.toHaveProperty('oneOf');
    expect(properties['target']?.['anyOf']).toHaveLength(2);
    expect(result['required']).toEqual(['unit', 'target']);
  });

  it.each([
    ['a non-object root', { type: 'string' }, /root is not an object/],
    ['an empty root', {}, /root is not an object/],
    ['a oneOf root', { oneOf: [{ type: 'object' }, { type: 'object' }] }, /root uses "oneOf"/],
    ['an anyOf root', { anyOf: [{ type: 'object' }] }, /root uses "anyOf"/],
    ['a $ref root', { $ref: '#/$defs/a', $defs: { a: { type: 'object' } } }, /root uses "\$ref"/],
    [
      'patternProperties',
      { type: 'object', patternProperties: { '^x': { type: 'string' } } },
      /patternProperties/,
    ],
    [
      'additionalProperties with a schema (a record)',
      {
        type: 'object',
        properties: { tags: { type: 'object', additionalProperties: { type: 'string' } } },
      },
      /#\/properties\/tags allows additional properties/,
    ],
    ['additionalProperties: true', { type: 'object', additionalProperties: true }, /additional/],
    [
      'allOf inside an array item',
      { type: 'object', properties: { list: { type: 'array', items: { allOf: [] } } } },
      /#\/properties\/list\/items uses "allOf"/,
    ],
    ['a boolean sub-schema', { type: 'object', properties: { any: true } }, /boolean/],
    ['not', { type: 'object', properties: { x: { not: { type: 'string' } } } }, /"not"/],
  ])('refuses %s', (_name, schema, message) => {
    expect(failed(schema)).toMatch(message);
  });
});

describe('fromStrictArguments', () => {
  const schema = {
    type: 'object',
    properties: {
      city: { type: 'string' },
      days: { type: 'integer' },
      note: { type: ['string', 'null'] },
      stops: {
        type: 'array',
        items: { $ref: '#/$defs/stop' },
      },
    },
    required: ['city'],
    $defs: {
      stop: { type: 'object', properties: { name: { type: 'string' }, hours: { type: 'number' } } },
    },
  };

  it('drops nulls standing for omitted optional properties, also nested and through $ref', () => {
    expect(
      JSON.parse(
        fromStrictArguments(
          schema,
          '{"city":"Paris","days":null,"note":null,"stops":[{"name":"Louvre","hours":null}]}',
        ),
      ),
    ).toEqual({ city: 'Paris', note: null, stops: [{ name: 'Louvre' }] });
  });

  it('returns the text unchanged when nothing is dropped or it is not JSON', () => {
    const text = '{ "city": "Paris", "days": 2 }';
    expect(fromStrictArguments(schema, text)).toBe(text);
    expect(fromStrictArguments(schema, '{"city": ')).toBe('{"city": ');
  });
});
