import { describe, expect, it } from 'vitest';
import { DEMO_TOOLS_TTL_MS } from '@switchboard/fixtures';
import { mcpServer, type McpServerStatus } from './mcp-server.ts';
import { useWarmCacheDemoServer } from './schema-cache-warm-test-support.ts';
import { MemorySchemaCache } from './memory-schema-cache.ts';
import type { SchemaCache, SchemaCacheEntry } from './schema-cache.ts';

// Warm schema cache on both protocol eras (issue 17, item 5): the demo server's 2026-07-28
// endpoint sends a realistic `ttlMs` (and `cacheScope`) with `tools/list`, so a warm listing
// makes no request at all; under its `zeroTtl` fault switch (`ttlMs: 0`) every listing asks the
// server again. The IndexedDB twin is schema-cache-warm.browser.test.ts.

const { demo: currentDemo, eras } = useWarmCacheDemoServer();

/** HTTP requests the demo server received while `body` ran (and 50 ms after, for stragglers). */
async function requestsDuring(body: () => Promise<unknown>): Promise<string[]> {
  const before = currentDemo().log.length;
  await body();
  await new Promise((resolve) => setTimeout(resolve, 50));
  return currentDemo()
    .log.slice(before)
    .map((entry) => `${entry.method} ${entry.rpcMethod ?? entry.path}`);
}

/**
 * One listing by a new client on `cache` (as after a reload), closed afterwards; the client's
 * status once it listed (`cached`: from the cache, never connected).
 */
async function listOnce(url: string, cache: SchemaCache): Promise<McpServerStatus> {
  const server = mcpServer({ url, name: 'demo', schemaCache: cache });
  try {
    const tools = await server.listTools();
    expect(tools.length).toBe(45 + 11);
    return server.getSnapshot().status;
  } finally {
    await server.close();
  }
}

/** The `tools/list` result the modern endpoint sends, straight off the wire. */
async function modernToolsList(): Promise<Record<string, unknown>> {
  const response = await fetch(currentDemo().modernUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/list',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'test', version: '0' },
        },
      },
    }),
  });
  const text = await response.text();
  const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? 'null');
  return (JSON.parse(json) as { result: Record<string, unknown> }).result;
}

describe('the demo server’s 2026-07-28 cache hints', () => {
  it(`sends ttlMs ${DEMO_TOOLS_TTL_MS} and cacheScope "public" with tools/list`, async () => {
    const result = await modernToolsList();
    expect(result).toMatchObject({ ttlMs: DEMO_TOOLS_TTL_MS, cacheScope: 'public' });
  });

  it('sends ttlMs 0 and cacheScope "private" under the zeroTtl switch (also over HTTP)', async () => {
    const patched = await fetch(`${currentDemo().url}/control/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ zeroTtl: true }),
    });
    expect(await patched.json()).toMatchObject({ zeroTtl: true });
    expect(await modernToolsList()).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
  });
});

describe('a warm memory schema cache', () => {
  it.each(eras)('lists with 0 requests (%s endpoint)', async (_era, url) => {
    const cache = new MemorySchemaCache();
    const cold = await requestsDuring(() => listOnce(url(), cache));
    expect(cold).toContain('POST tools/list');

    let status: McpServerStatus | undefined;
    const warm = await requestsDuring(async () => {
      status = await listOnce(url(), cache);
    });
    expect(warm).toEqual([]);
    expect(status).toBe('cached');
  });

  it('is not used when the 2026-07-28 server says ttlMs 0 (zeroTtl)', async () => {
    currentDemo().faults.zeroTtl = true;
    const cache = new MemorySchemaCache();
    await listOnce(currentDemo().modernUrl, cache);
    const warm = await requestsDuring(() => listOnce(currentDemo().modernUrl, cache));
    expect(warm.filter((request) => request === 'POST tools/list')).toHaveLength(3);
  });

  it('keeps the entry for the server’s ttlMs, not the client’s cacheTtlMs', async () => {
    const memory = new MemorySchemaCache();
    const stored: SchemaCacheEntry[] = [];
    const cache: SchemaCache = {
      get: (key, options) => memory.get(key, options),
      set: async (key, entry, options) => {
        stored.push(entry);
        await memory.set(key, entry, options);
      },
      delete: (key, options) => memory.delete(key, options),
      clear: (options) => memory.clear(options),
    };
    const server = mcpServer({
      url: currentDemo().modernUrl,
      name: 'demo',
      schemaCache: cache,
      cacheTtlMs: 1,
    });
    await server.listTools();
    await server.close();
    expect(stored.map((entry) => entry.expiresAt - entry.storedAt)).toEqual([DEMO_TOOLS_TTL_MS]);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await requestsDuring(() => listOnce(currentDemo().modernUrl, cache))).toEqual([]);
  });
});
