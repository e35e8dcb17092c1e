import { describe, expect, it } from 'vitest';
import { isSwitchboardError } from '../errors/switchboard-error.ts';
import { schemaCacheKey, type SchemaCacheKeyInput } from './schema-cache-key.ts';

const base: SchemaCacheKeyInput = {
  url: 'https://mcp.example.com/mcp',
  transport: 'auto',
};

describe('schemaCacheKey', () => {
  it('gives the same key for the same inputs, whatever the filter order or header case', async () => {
    const first = await schemaCacheKey({
      ...base,
      toolFilter: ['search', 'book', 'cancel'],
      toolPrefix: 'travel_',
      headers: { Authorization: 'Bearer abc', 'X-Team': 'blue' },
    });
    const second = await schemaCacheKey({
      url: new URL('HTTPS://MCP.EXAMPLE.COM:443/mcp#fragment'),
      transport: 'auto',
      toolFilter: ['cancel', 'book', 'search', 'book'],
      toolPrefix: 'travel_',
      headers: [
        ['x-team', 'blue'],
        ['authorization', 'Bearer abc'],
      ],
    });
    const third = await schemaCacheKey({
      ...base,
      toolFilter: ['book', 'cancel', 'search'],
      toolPrefix: 'travel_',
      headers: new Headers({ 'x-team': 'blue', authorization: 'Bearer abc' }),
    });
    expect(second).toBe(first);
    expect(third).toBe(first);
    expect(first.startsWith('switchboard-schema-cache:v1:')).toBe(true);
  });

  it('differs for different secrets, and shows neither secret nor any header value', async () => {
    const secretA = 'sk-live-AAAAAAAAAAAAAAAAAAAAAAAA';
    const secretB = 'sk-live-BBBBBBBBBBBBBBBBBBBBBBBB';
    const keyA = await schemaCacheKey({
      ...base,
      headers: { Authorization: `Bearer ${secretA}`, 'X-Api-Key': 'tenant-a-value' },
    });
    const keyB = await schemaCacheKey({
      ...base,
      headers: { Authorization: `Bearer ${secretB}`, 'X-Api-Key': 'tenant-a-value' },
    });
    expect(keyA).not.toBe(keyB);
    for (const key of [keyA, keyB]) {
      for (const hidden of [
        secretA,
        secretB,
        'Bearer',
        'tenant-a-value',
        'X-Api-Key',
        'x-api-key',
      ]) {
        expect(key).not.toContain(hidden);
      }
      expect(key.toLowerCase()).not.toContain('authorization');
    }
    expect(await schemaCacheKey(base)).not.toBe(keyA);
  });

  it('keeps credentials in the URL out of the key but still tells them apart', async () => {
    const keyA = await schemaCacheKey({
      ...base,
      url: 'https://user:hunter2-password@mcp.example.com/v1/sk-proj-abcdef123456/mcp?access_token=tok-A-123&region=eu&apiKey=k1',
    });
    const keyB = await schemaCacheKey({
      ...base,
      url: 'https://user:hunter2-password@mcp.example.com/v1/sk-proj-abcdef123456/mcp?access_token=tok-B-456&region=eu&apiKey=k1',
    });
    const keyC = await schemaCacheKey({
      ...base,
      url: 'https://mcp.example.com/servers/4f9c2d7e8a1b4c3d9e0f/sse',
    });
    expect(keyA).not.toBe(keyB);
    for (const hidden of ['hunter2', 'user', 'sk-proj', 'tok-A', 'tok-B', 'k1']) {
      expect(keyA).not.toContain(hidden);
      expect(keyB).not.toContain(hidden);
    }
    expect(keyA).toContain('https://mcp.example.com/v1/~/mcp?access_token=~&region=eu&apiKey=~');
    expect(keyC).toContain('https://mcp.example.com/servers/~/sse');
    expect(keyC).not.toContain('4f9c2d7e8a1b4c3d9e0f');
  });

  it('separates transport, filter, prefix and path, and keeps ordinary parts readable', async () => {
    const keys = await Promise.all([
      schemaCacheKey(base),
      schemaCacheKey({ ...base, transport: 'sse' }),
      schemaCacheKey({ ...base, toolFilter: [] }),
      schemaCacheKey({ ...base, toolFilter: ['a'] }),
      schemaCacheKey({ ...base, toolPrefix: 'x_' }),
      schemaCacheKey({ ...base, url: 'https://mcp.example.com/other' }),
      schemaCacheKey({ ...base, url: 'https://mcp.example.com/mcp?region=us' }),
    ]);
    expect(new Set(keys).size).toBe(keys.length);
    const parsed = JSON.parse(keys[3]!.slice('switchboard-schema-cache:v1:'.length)) as Record<
      string,
      unknown
    >;
    expect(parsed).toMatchObject({
      transport: 'auto',
      url: 'https://mcp.example.com/mcp',
      toolFilter: ['a'],
      toolPrefix: null,
    });
    expect(parsed['credentials']).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('rejects an invalid URL or invalid headers with invalid_input, without quoting them', async () => {
    const badUrl: unknown = await schemaCacheKey({ ...base, url: 'not a url' }).catch(
      (failure: unknown) => failure,
    );
    expect(isSwitchboardError(badUrl, 'invalid_input')).toBe(true);
    const badHeader: unknown = await schemaCacheKey({
      ...base,
      headers: { authorization: 'Bearer secret\nInjected: yes' },
    }).catch((failure: unknown) => failure);
    expect(isSwitchboardError(badHeader, 'invalid_input')).toBe(true);
    expect(String((badHeader as Error).message)).not.toContain('secret');
    expect((badHeader as Error).cause).toBeUndefined();
  });

  it('rejects with aborted when the signal is aborted', async () => {
    const error: unknown = await schemaCacheKey(base, { signal: AbortSignal.abort() }).catch(
      (failure: unknown) => failure,
    );
    expect(isSwitchboardError(error, 'aborted')).toBe(true);
  });
});
