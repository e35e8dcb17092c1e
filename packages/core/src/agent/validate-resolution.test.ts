import { describe, expect, it } from 'vitest';
import type { Interrupt } from '../vocabulary/interrupts.ts';
import { validateResolution } from './validate-resolution.ts';

/** A schema well outside MCP's restricted elicitation subset, as servers in the wild send. */
const schema = {
  type: 'object',
  $defs: { color: { type: 'string', enum: ['red', 'green'] } },
  properties: {
    size: { anyOf: [{ type: 'string', enum: ['S', 'M'] }, { type: 'null' }] },
    note: { type: ['string', 'null'] },
    plan: {
      oneOf: [
        { const: 'free', title: 'Free' },
        { const: 'pro', title: 'Pro' },
      ],
    },
    extras: {
      type: 'array',
      items: { anyOf: [{ const: 'wifi', title: 'Wi-Fi' }] },
      uniqueItems: true,
    },
    email: { type: 'string', format: 'email' },
    color: { $ref: '#/$defs/color' },
    scores: { type: 'object', additionalProperties: { type: 'number' } },
  },
  required: ['email', 'color'],
};

const interrupt = { callId: 'c', mode: 'form', requestedSchema: schema } as unknown as Interrupt;
const approve = (content: Record<string, unknown>) =>
  validateResolution(interrupt, { callId: 'c', action: 'approve', content });

describe('validateResolution against schemas beyond the restricted subset', () => {
  it('accepts answers that satisfy nullable enums, titled selects, formats and $ref', () => {
    expect(
      approve({
        size: null,
        note: null,
        plan: 'pro',
        extras: ['wifi'],
        email: 'ada@example.com',
        color: 'green',
        scores: { taste: 5 },
      }),
    ).toBeUndefined();
    expect(approve({ size: 'M', note: 'hi', email: 'a@b.co', color: 'red' })).toBeUndefined();
  });

  it.each<[Record<string, unknown>, string]>([
    [{ email: 'a@b.co', color: 'pink' }, 'a value outside the $ref enum'],
    [{ email: 'not-an-email', color: 'red' }, 'a bad email format'],
    [{ email: 'a@b.co', color: 'red', size: 'XL' }, 'a value outside the nullable enum'],
    [{ email: 'a@b.co', color: 'red', plan: 'gold' }, 'a value outside the titled select'],
    [{ email: 'a@b.co', color: 'red', extras: ['spa'] }, 'a value outside the multi-select'],
    [
      { email: 'a@b.co', color: 'red', scores: { taste: 'good' } },
      'a nested value of the wrong type',
    ],
    [{ color: 'red' }, 'a missing required field'],
  ])('refuses %o (%s)', (content) => {
    expect(approve(content)).toMatchObject({ code: 'invalid_resolution' });
  });
});
