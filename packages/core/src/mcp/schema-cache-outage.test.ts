import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDemoServer, type DemoServer } from '@switchboard/fixtures';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import { mcpServer, type McpServer } from './mcp-server.ts';
import { MemorySchemaCache } from './memory-schema-cache.ts';
import type { SchemaCacheCallOptions, SchemaCacheEntry } from './schema-cache.ts';

// A schema cache that is down (a Redis outage, a full IndexedDB) costs requests, never the
// tools: the catalogue reads a failed get as a miss, keeps a listing whose write failed, and shows
// the failure on the server's snapshot until the cache works again.

/** A memory cache that fails every operation while `down`, as a cache behind a network does. */
class FlakyCache extends MemorySchemaCache {
  down = true;

  override async get(key: string, options?: SchemaCacheCallOptions) {
    this.#fail('get');
    return await super.get(key, options);
  }

  override async set(key: string, entry: SchemaCacheEntry, options?: SchemaCacheCallOptions) {
    this.#fail('set');
    await super.set(key, entry, options);
  }

  override async delete(key: string, options?: SchemaCacheCallOptions) {
    this.#fail('delete');
    await super.delete(key, options);
  }

  #fail(operation: string): void {
    if (this.down) {
      throw new SwitchboardError('storage_error', `cache ${operation}: connection refused`);
    }
  }
}

let demo: DemoServer;
beforeAll(async () => {
  demo = await startDemoServer();
});
afterAll(async () => {
  await demo.close();
});
const servers: McpServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

function server(cache: FlakyCache): McpServer {
  const made = mcpServer({ url: demo.legacyUrl, name: 'demo', schemaCache: cache });
  servers.push(made);
  return made;
}
const toolsLists = () => demo.log.filter((entry) => entry.rpcMethod === 'tools/list').length;

describe('McpServer over a schema cache that fails', () => {
  it('lists from the server, keeps the tools and shows the cache failure without an error status', async () => {
    const cache = new FlakyCache();
    const holder = server(cache);
    const before = toolsLists();

    const tools = await holder.listTools();

    expect(tools.length).toBeGreaterThan(0);
    expect(toolsLists()).toBeGreaterThan(before);
    const snapshot = holder.getSnapshot();
    expect(snapshot.status).toBe('connected');
    expect(snapshot.tools).toHaveLength(tools.length);
    expect(snapshot.schemaCacheError?.code).toBe('storage_error');
    expect(snapshot.schemaCacheError?.message).toContain('cache set: connection refused');
  });

  it('clears the failure once the cache works again, and a second client is served from it', async () => {
    const cache = new FlakyCache();
    const first = server(cache);
    await first.listTools();
    expect(first.getSnapshot().schemaCacheError).toBeDefined();

    cache.down = false;
    await first.invalidate();
    expect(first.getSnapshot().schemaCacheError).toBeUndefined();
    await first.listTools();

    const second = server(cache);
    const before = toolsLists();
    await second.listTools();
    expect(toolsLists()).toBe(before);
    expect(second.getSnapshot().schemaCacheError).toBeUndefined();
  });

  it('still ends a listing whose caller aborts while the cache fails', async () => {
    const cache = new FlakyCache();
    const holder = server(cache);
    const controller = new AbortController();
    controller.abort();
    await expect(holder.listTools({ signal: controller.signal })).rejects.toThrow();
  });
});
