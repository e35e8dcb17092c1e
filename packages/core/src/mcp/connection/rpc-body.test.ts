import { describe, expect, it } from 'vitest';
import { mayBeHandshake, requestIdOf } from './rpc-body.ts';

describe('requestIdOf', () => {
  it('reads the id the SDK writes last, without parsing', () => {
    const parse = JSON.parse;
    let parsed = 0;
    JSON.parse = ((...args: Parameters<typeof JSON.parse>) => {
      parsed += 1;
      return parse(...args);
    }) as typeof JSON.parse;
    try {
      const body = JSON.stringify({
        method: 'tools/call',
        params: { name: 'x', arguments: { id: 7, nested: { id: 8 } } },
        jsonrpc: '2.0',
        id: 42,
      });
      expect(requestIdOf(body)).toBe(42);
      expect(requestIdOf('{"method":"notifications/initialized","jsonrpc":"2.0"}')).toBeUndefined();
    } finally {
      JSON.parse = parse;
    }
    expect(parsed).toBe(0);
  });

  it('parses any other shape, and finds no id in a notification or a response', () => {
    expect(requestIdOf('{"jsonrpc":"2.0","id":"a-1","method":"tools/list"}')).toBe('a-1');
    expect(requestIdOf('{"method":"tools/list","jsonrpc":"2.0","id":"s"}')).toBe('s');
    // The last `,"id":` is nested: not the request's.
    expect(requestIdOf('{"method":"x","id":3,"params":{"a":1,"id":9}}')).toBe(3);
    expect(requestIdOf('{"jsonrpc":"2.0","id":5,"result":{}}')).toBeUndefined();
    expect(requestIdOf('{"method":"notifications/cancelled","params":{"requestId":4}}')).toBe(
      undefined,
    );
    expect(requestIdOf('[{"method":"x","id":1}]')).toBeUndefined();
    expect(requestIdOf('not json')).toBeUndefined();
    expect(requestIdOf(undefined)).toBeUndefined();
  });
});

describe('mayBeHandshake', () => {
  it('reads the method the SDK writes first, and scans any other body', () => {
    expect(mayBeHandshake('{"method":"initialize","params":{},"jsonrpc":"2.0","id":0}')).toBe(true);
    expect(mayBeHandshake('{"method":"server/discover","jsonrpc":"2.0","id":0}')).toBe(true);
    expect(mayBeHandshake('{"method":"tools/call","params":{"name":"initialize"},"id":1}')).toBe(
      false,
    );
    expect(mayBeHandshake('{"jsonrpc":"2.0","id":0,"method":"initialize"}')).toBe(true);
    expect(mayBeHandshake(undefined)).toBe(false);
  });
});
