import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDemoServer, type DemoServer } from '@switchboard/fixtures';
import { mcpServer, type McpServer } from './mcp-server.ts';
import { MemorySchemaCache } from './memory-schema-cache.ts';
import type {
  SchemaCacheCallOptions,
  SchemaCacheChange,
  SchemaCacheEntry,
} from './schema-cache.ts';

// The tool catalogue following a shared schema cache's changes (`SchemaCache.watch`), as an
// McpServer in another process does with RedisSchemaCache (packages/redis has the same tests
// across real processes and a real Redis). Here two McpServers share one in-memory cache that
// reports its changes, against the demo server's 2025 endpoint.

/** A memory cache that reports every change, as a shared cache does. */
class ReportingCache extends MemorySchemaCache {
  readonly #listeners = new Set<(change: SchemaCacheChange) => void>();

  override async set(key: string, entry: SchemaCacheEntry, options?: SchemaCacheCallOptions) {
    await super.set(key, entry, options);
    this.#report({ kind: 'set', key, storedAt: entry.storedAt });
  }

  override async delete(key: string, options?: SchemaCacheCallOptions) {
    await super.delete(key, options);
    this.#report({ kind: 'delete', key });
  }

  watch(listener: (change: SchemaCacheChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  get watchers(): number {
    return this.#listeners.size;
  }

  /** Reported a moment later, as a message over the network arrives. */
  #report(change: SchemaCacheChange): void {
    setTimeout(() => {
      for (const listener of [...this.#listeners]) listener(change);
    }, 0);
  }
}

let demo: DemoServer;
beforeAll(async () => {
  demo = await startDemoServer({ toolCount: 45, pageSize: 20 });
});
afterAll(async () => {
  await demo.close();
});
const servers: McpServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  await fetch(`${demo.url}/control/tools-changed`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ enabled: false }),
  });
});

function server(cache: ReportingCache, url = demo.legacyUrl): McpServer {
  const made = mcpServer({ url, name: 'demo', schemaCache: cache });
  servers.push(made);
  return made;
}
const toolsLists = () => demo.log.filter((entry) => entry.rpcMethod === 'tools/list').length;
const hasDynamicTool = (holder: McpServer) =>
  holder.getSnapshot().tools?.some((tool) => tool.name === 'dynamic_tool') ?? false;

describe('McpServer over a schema cache that reports changes', () => {
  it('takes the listing another client stored after list_changed from the cache, with no request', async () => {
    const cache = new ReportingCache();
    const listening = server(cache);
    const listed = toolsLists();
    await listening.listTools();
    const pages = toolsLists() - listed;
    const holding = server(cache);
    await holding.listTools();
    expect(toolsLists() - listed).toBe(pages); // from the cache

    await fetch(`${demo.url}/control/tools-changed`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ enabled: true }),
    });
    await expect.poll(() => hasDynamicTool(holding), { timeout: 10_000 }).toBe(true);
    expect(hasDynamicTool(listening)).toBe(true);
    // One re-listing, by the client that heard list_changed.
    expect(toolsLists() - listed).toBe(2 * pages);
    expect(holding.getSnapshot().status).toBe('cached');
  });

  it('drops the held listing when another client invalidates it, and lists again on demand', async () => {
    const cache = new ReportingCache();
    const first = server(cache);
    await first.listTools();
    const second = server(cache);
    await second.listTools();
    const before = toolsLists();

    await first.invalidate();
    // The second one's next listing asks the server (its listing was dropped) and stores it…
    await expect
      .poll(async () => {
        await second.listTools();
        return toolsLists() > before;
      })
      .toBe(true);
    const after = toolsLists();
    // …and its own write does not make it, or anyone, list again.
    await new Promise((resolve) => setTimeout(resolve, 50));
    await second.listTools();
    expect(toolsLists()).toBe(after);
  });

  it('ignores changes of other servers’ entries, and stops watching when closed', async () => {
    const cache = new ReportingCache();
    const holder = server(cache);
    await holder.listTools();
    expect(cache.watchers).toBe(1);
    const before = toolsLists();
    await cache.set('another-server', { tools: [], storedAt: 1, expiresAt: Infinity });
    await cache.delete('another-server');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await holder.listTools();
    expect(toolsLists()).toBe(before);

    await holder.close();
    expect(cache.watchers).toBe(0);
  });
});
