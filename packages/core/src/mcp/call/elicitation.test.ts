import { describe, expect, it } from 'vitest';
import { nextElicitation, parseElicitation } from './elicitation.ts';

describe('parseElicitation (our lenient reading of elicitation/create params)', () => {
  it('keeps any object schema unchanged, whatever keywords it uses', () => {
    const requestedSchema = {
      type: 'object',
      $defs: { c: { enum: ['a'] } },
      properties: { x: { anyOf: [{ $ref: '#/$defs/c' }, { type: 'null' }] } },
      patternProperties: { '^y': { type: 'object' } },
    };
    const parsed = parseElicitation({ message: 'Hi', requestedSchema });
    expect(parsed).toEqual({
      ok: true,
      request: { mode: 'form', message: 'Hi', requestedSchema },
    });
    if (parsed.ok) expect(parsed.request.requestedSchema).toBe(requestedSchema);
    expect(parseElicitation({ requestedSchema: { properties: {} } }).ok).toBe(true);
    expect(parseElicitation({ requestedSchema: { type: ['object', 'null'] } }).ok).toBe(true);
  });

  it('reads url mode', () => {
    expect(
      parseElicitation({ mode: 'url', url: 'https://x.test', elicitationId: 'e', message: 'Go' }),
    ).toEqual({
      ok: true,
      request: { mode: 'url', url: 'https://x.test', elicitationId: 'e', message: 'Go' },
    });
  });

  it.each([
    [undefined, 'params must be an object'],
    [{ message: 'x' }, 'a form request needs "requestedSchema", a JSON Schema object'],
    [{ requestedSchema: null }, '"requestedSchema" must be a JSON Schema object, got null'],
    [{ requestedSchema: 'object' }, '"requestedSchema" must be a JSON Schema object, got string'],
    [
      { requestedSchema: { type: 'array' } },
      '"requestedSchema" must describe an object (type "object"), got type "array"',
    ],
    [
      { requestedSchema: { type: 'object', properties: [] } },
      '"requestedSchema.properties" must be an object of property schemas',
    ],
    [{ mode: 'url' }, 'a url-mode request needs "url", a string'],
    [{ mode: 'voice' }, 'unknown mode "voice" (this client supports "form" and "url")'],
  ])('refuses %o, saying why', (params, reason) => {
    expect(parseElicitation(params)).toEqual({ ok: false, reason });
  });

  it('nextElicitation skips answered and non-elicitation requests and reports an invalid one', () => {
    const inputRequests = {
      roots: { method: 'roots/list' },
      a: { method: 'elicitation/create', params: { requestedSchema: { type: 'object' } } },
      b: { method: 'elicitation/create', params: { requestedSchema: { type: 'string' } } },
    };
    expect(nextElicitation(inputRequests, {})).toMatchObject({ key: 'a' });
    expect(nextElicitation(inputRequests, { a: {} })).toEqual({
      key: 'b',
      invalid: '"requestedSchema" must describe an object (type "object"), got type "string"',
    });
    expect(nextElicitation(inputRequests, { a: {}, b: {} })).toBeUndefined();
  });
});
