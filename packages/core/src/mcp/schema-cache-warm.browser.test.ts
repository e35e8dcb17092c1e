// fake-indexeddb's IDB* classes as globals (jsdom has none); each test gets its own IDBFactory.
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { IndexedDbSchemaCache } from './indexeddb-schema-cache.ts';
import { mcpServer, type McpServerStatus } from './mcp-server.ts';
import { useWarmCacheDemoServer } from './schema-cache-warm-test-support.ts';

// Warm IndexedDB schema cache on both protocol eras (issue 17, item 5): after a "reload" (a new
// cache object and a new client on the same database) a listing makes no request at all, and a
// 2026-07-28 `ttlMs: 0` (the demo server's `zeroTtl` switch) is still obeyed. The memory-cache
// twin is schema-cache-warm.test.ts.

const { demo: currentDemo, eras } = useWarmCacheDemoServer();

/**
 * One "page load": a new `IndexedDbSchemaCache` on `factory` and a new client list the tools,
 * then both close. Returns the client's status once it listed and the requests the demo server
 * received meanwhile (and 50 ms after).
 */
async function pageLoad(
  url: string,
  factory: IDBFactory,
): Promise<{ status: McpServerStatus; requests: string[] }> {
  const before = currentDemo().log.length;
  const cache = new IndexedDbSchemaCache({ indexedDB: factory });
  const server = mcpServer({ url, name: 'demo', schemaCache: cache });
  try {
    expect(await server.listTools()).toHaveLength(45 + 11);
    const status = server.getSnapshot().status;
    await server.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const requests = currentDemo()
      .log.slice(before)
      .map((entry) => `${entry.method} ${entry.rpcMethod ?? entry.path}`);
    return { status, requests };
  } finally {
    await server.close();
    cache.close();
  }
}

describe('a warm IndexedDB schema cache', () => {
  it.each(eras)('lists with 0 requests after a reload (%s endpoint)', async (_era, url) => {
    const factory = new IDBFactory();
    const cold = await pageLoad(url(), factory);
    expect(cold.requests).toContain('POST tools/list');
    const warm = await pageLoad(url(), factory);
    expect(warm).toEqual({ status: 'cached', requests: [] });
  });

  it('is not used when the 2026-07-28 server says ttlMs 0 (zeroTtl)', async () => {
    currentDemo().faults.zeroTtl = true;
    const factory = new IDBFactory();
    await pageLoad(currentDemo().modernUrl, factory);
    const warm = await pageLoad(currentDemo().modernUrl, factory);
    expect(warm.status).not.toBe('cached');
    expect(warm.requests.filter((request) => request === 'POST tools/list')).toHaveLength(3);
  });
});
