import { describe, expect, it } from 'vitest';
import { encodeValue, mcpParamHeaders, scanHeaderParams } from './param-headers.ts';

const b64 = (text: string): string => `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;

/** A schema with one `x-mcp-header` property `value` of `type`. */
const one = (type: string, header = 'Value'): Record<string, unknown> => ({
  type: 'object',
  properties: { value: { type, 'x-mcp-header': header } },
});

describe('mcpParamHeaders', () => {
  const cases: {
    name: string;
    schema: unknown;
    args: Record<string, unknown>;
    headers: Record<string, string>;
  }[] = [
    {
      name: 'a plain string as it is',
      schema: one('string', 'Region'),
      args: { value: 'us-west1' },
      headers: { 'Mcp-Param-Region': 'us-west1' },
    },
    {
      name: 'internal spaces stay plain',
      schema: one('string'),
      args: { value: 'us west 1' },
      headers: { 'Mcp-Param-Value': 'us west 1' },
    },
    {
      name: 'an integer in decimal',
      schema: one('integer', 'Priority'),
      args: { value: 42 },
      headers: { 'Mcp-Param-Priority': '42' },
    },
    {
      name: 'booleans lowercase',
      schema: {
        type: 'object',
        properties: {
          a: { type: 'boolean', 'x-mcp-header': 'A' },
          b: { type: 'boolean', 'x-mcp-header': 'B' },
        },
      },
      args: { a: true, b: false },
      headers: { 'Mcp-Param-A': 'true', 'Mcp-Param-B': 'false' },
    },
    {
      name: 'non-ASCII as Base64 of UTF-8',
      schema: one('string'),
      args: { value: 'Hello, 世界' },
      headers: { 'Mcp-Param-Value': b64('Hello, 世界') },
    },
    {
      name: 'leading whitespace as Base64',
      schema: one('string'),
      args: { value: ' us-west1' },
      headers: { 'Mcp-Param-Value': b64(' us-west1') },
    },
    {
      name: 'trailing whitespace as Base64',
      schema: one('string'),
      args: { value: 'us-west1 ' },
      headers: { 'Mcp-Param-Value': b64('us-west1 ') },
    },
    {
      name: 'control characters (CR LF, tab) as Base64',
      schema: {
        type: 'object',
        properties: {
          crlf: { type: 'string', 'x-mcp-header': 'CrLf' },
          tab: { type: 'string', 'x-mcp-header': 'Tab' },
        },
      },
      args: { crlf: 'line1\r\nline2', tab: 'a\tb' },
      headers: { 'Mcp-Param-CrLf': b64('line1\r\nline2'), 'Mcp-Param-Tab': b64('a\tb') },
    },
    {
      name: 'the empty string as Base64 (never an empty field)',
      schema: one('string'),
      args: { value: '' },
      headers: { 'Mcp-Param-Value': '=?base64??=' },
    },
    {
      name: 'a value shaped like the sentinel as Base64',
      schema: one('string'),
      args: { value: '=?base64?abc?=' },
      headers: { 'Mcp-Param-Value': b64('=?base64?abc?=') },
    },
    {
      name: 'null and absent arguments send no header',
      schema: {
        type: 'object',
        properties: {
          a: { type: 'boolean', 'x-mcp-header': 'A' },
          b: { type: 'string', 'x-mcp-header': 'B' },
        },
      },
      args: { a: null },
      headers: {},
    },
    {
      name: 'a non-primitive value sends no header',
      schema: one('string'),
      args: { value: { nested: true } },
      headers: {},
    },
    {
      name: 'an unsafe integer sends no header',
      schema: one('integer'),
      args: { value: 2 ** 60 },
      headers: {},
    },
    {
      name: 'unannotated properties are not mirrored',
      schema: {
        type: 'object',
        properties: {
          region: { type: 'string', 'x-mcp-header': 'Region' },
          query: { type: 'string' },
          ratio: { type: 'number' },
        },
      },
      args: { region: 'eu', query: 'SELECT 1', ratio: 3.14 },
      headers: { 'Mcp-Param-Region': 'eu' },
    },
    {
      name: 'nested properties at any depth',
      schema: {
        type: 'object',
        properties: {
          target: {
            type: 'object',
            properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } },
          },
        },
      },
      args: { target: { zone: 'b' } },
      headers: { 'Mcp-Param-Zone': 'b' },
    },
    {
      name: 'an invalid schema mirrors nothing',
      schema: one('number'),
      args: { value: 1.5 },
      headers: {},
    },
    { name: 'no schema, no headers', schema: undefined, args: { value: 'x' }, headers: {} },
  ];
  it.each(cases)('$name', ({ schema, args, headers }) => {
    expect(mcpParamHeaders(schema, args)).toEqual(headers);
  });
});

describe('scanHeaderParams', () => {
  const invalid: { name: string; schema: unknown; reason: RegExp }[] = [
    { name: 'empty name', schema: one('string', ''), reason: /non-empty/ },
    { name: 'object type', schema: one('object'), reason: /type string, integer or boolean/ },
    { name: 'array type', schema: one('array'), reason: /type string, integer or boolean/ },
    { name: 'null type', schema: one('null'), reason: /type string, integer or boolean/ },
    { name: 'number type', schema: one('number'), reason: /type string, integer or boolean/ },
    {
      name: 'no type',
      schema: { type: 'object', properties: { v: { 'x-mcp-header': 'V' } } },
      reason: /type string/,
    },
    { name: 'space in name', schema: one('string', 'My Region'), reason: /not an HTTP token/ },
    { name: 'colon in name', schema: one('string', 'Region:1'), reason: /not an HTTP token/ },
    { name: 'non-ASCII name', schema: one('string', 'Région'), reason: /not an HTTP token/ },
    { name: 'control char in name', schema: one('string', 'Region\t1'), reason: /HTTP token/ },
    {
      name: 'duplicate, other case',
      schema: {
        type: 'object',
        properties: {
          a: { type: 'string', 'x-mcp-header': 'MyField' },
          b: { type: 'string', 'x-mcp-header': 'myfield' },
        },
      },
      reason: /repeats "MyField"/,
    },
    {
      name: 'under items',
      schema: {
        type: 'object',
        properties: {
          list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } },
        },
      },
      reason: /reached through "properties"/,
    },
    {
      name: 'under anyOf',
      schema: {
        type: 'object',
        anyOf: [{ properties: { v: { type: 'string', 'x-mcp-header': 'V' } } }],
      },
      reason: /reached through "properties"/,
    },
    {
      name: 'under $defs',
      schema: {
        type: 'object',
        $defs: { v: { type: 'string', 'x-mcp-header': 'V' } },
        properties: { v: { $ref: '#/$defs/v' } },
      },
      reason: /reached through "properties"/,
    },
    {
      name: 'on the root',
      schema: { type: 'object', 'x-mcp-header': 'Root' },
      reason: /reached through "properties"/,
    },
  ];
  it.each(invalid)('refuses $name', ({ schema, reason }) => {
    const scan = scanHeaderParams(schema);
    expect(scan.valid).toBe(false);
    if (!scan.valid) expect(scan.reason).toMatch(reason);
  });

  it('collects the declarations with their paths', () => {
    const scan = scanHeaderParams({
      type: 'object',
      properties: {
        region: { type: 'string', 'x-mcp-header': 'Region' },
        target: {
          type: 'object',
          properties: { zone: { type: 'integer', 'x-mcp-header': 'Zone' } },
        },
      },
    });
    expect(scan).toEqual({
      valid: true,
      params: [
        { path: ['region'], name: 'Region' },
        { path: ['target', 'zone'], name: 'Zone' },
      ],
    });
  });
});

describe('encodeValue', () => {
  it.each([
    ['plain', 'plain'],
    ['a b', 'a b'],
    ['~!#', '~!#'],
    ['é', b64('é')],
    ['\u007f', b64('\u007f')],
  ])('%j → %j', (text, encoded) => {
    expect(encodeValue(text)).toBe(encoded);
  });
});
