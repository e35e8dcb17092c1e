import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createClient } from '@redis/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mcpServer, type McpServer } from '@switchboard/core';
import {
  DEMO_TOOLS_TTL_MS,
  startDemoServer,
  startRedisServer,
  type DemoServer,
  type RedisTestServer,
  type RequestLogEntry,
} from '@switchboard/fixtures';
import { RedisSchemaCache } from './redis-schema-cache.ts';

// The Redis schema cache under real McpServers: the demo MCP server (both protocol eras) and a
// throwaway redis-server, both on 127.0.0.1 and stopped afterwards.

const REPOSITORY = fileURLToPath(new URL('../../..', import.meta.url));
const TOOL_COUNT = 45 + 11; // the demo server's generated tools plus its named and task tools

let demo: DemoServer;
let redis: RedisTestServer;
let raw: ReturnType<typeof createClient>;
beforeAll(async () => {
  [demo, redis] = await Promise.all([
    startDemoServer({ toolCount: 45, pageSize: 20 }),
    startRedisServer(),
  ]);
  raw = createClient({ url: redis.url });
  await raw.connect();
}, 30_000);
afterAll(async () => {
  await raw.close();
  await Promise.all([demo.close(), redis.close()]);
});

const opened: (McpServer | RedisSchemaCache)[] = [];
afterEach(async () => {
  for (const thing of opened.splice(0).reverse()) await thing.close();
  await setDynamicTool(false);
  demo.faults.reset();
});
let prefixes = 0;
function freshPrefix(): string {
  prefixes += 1;
  return `mcp-test-${prefixes}:`;
}
function redisCache(keyPrefix: string): RedisSchemaCache {
  const cache = new RedisSchemaCache({ url: redis.url, keyPrefix });
  opened.push(cache);
  return cache;
}
function server(
  url: string,
  cache: RedisSchemaCache,
  extra: { headers?: Record<string, string>; cacheTtlMs?: number } = {},
): McpServer {
  const made = mcpServer({ url, name: 'demo', schemaCache: cache, ...extra });
  opened.push(made);
  return made;
}
async function setDynamicTool(enabled: boolean): Promise<void> {
  await fetch(`${demo.url}/control/tools-changed`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ enabled }),
  });
}
const toolsListRequests = () => demo.log.filter((entry) => entry.rpcMethod === 'tools/list').length;

/**
 * A second process: lists the tools through its own McpServer and RedisSchemaCache, prints how
 * many it got and its status, and exits.
 */
const SECOND_PROCESS = `
const { mcpServer } = await import('@switchboard/core');
const { RedisSchemaCache } = await import('@switchboard/redis');
const cache = new RedisSchemaCache({ url: process.env.REDIS_URL, keyPrefix: process.env.KEY_PREFIX });
const server = mcpServer({ url: process.env.MCP_URL, name: 'demo', schemaCache: cache });
const tools = await server.listTools();
console.log(JSON.stringify({ tools: tools.length, status: server.getSnapshot().status }));
await server.close();
await cache.close();
`;

function secondProcess(
  mcpUrl: string,
  keyPrefix: string,
): Promise<{ tools: number; status: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--conditions=@switchboard/source',
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        SECOND_PROCESS,
      ],
      {
        cwd: REPOSITORY,
        env: { ...process.env, REDIS_URL: redis.url, KEY_PREFIX: keyPrefix, MCP_URL: mcpUrl },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    let errors = '';
    child.stdout.on('data', (data: Buffer) => (output += data.toString()));
    child.stderr.on('data', (data: Buffer) => (errors += data.toString()));
    // Nothing waits without a limit: a stuck child is killed, and its output shown.
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(JSON.parse(output.trim()) as { tools: number; status: string });
      else reject(new Error(`the second process exited ${code}: ${errors}\n${output}`));
    });
  });
}

/**
 * Waits for the stream that carries `list_changed` to the first client, which opens right after
 * its first listing: a 2026-07-28 `subscriptions/listen`, a 2025 session's standalone GET.
 */
async function streamOpened(era: string, since: number): Promise<void> {
  const opened = (entry: RequestLogEntry) =>
    era === '2026-07-28'
      ? entry.rpcMethod === 'subscriptions/listen'
      : entry.method === 'GET' && entry.path === '/legacy/mcp';
  await expect.poll(() => demo.log.slice(since).some(opened)).toBe(true);
}

const eras = [
  ['2025', () => demo.legacyUrl],
  ['2026-07-28', () => demo.modernUrl],
] as const;

describe.each(eras)('RedisSchemaCache with McpServer (%s)', (_era, url) => {
  it('serves a second process from Redis with zero MCP requests', async () => {
    const keyPrefix = freshPrefix();
    const first = server(url(), redisCache(keyPrefix));
    const since = demo.log.length;
    expect(await first.listTools()).toHaveLength(TOOL_COUNT);
    await streamOpened(_era, since);

    const before = demo.log.length;
    expect(await secondProcess(url(), keyPrefix)).toEqual({ tools: TOOL_COUNT, status: 'cached' });
    expect(demo.log.slice(before)).toEqual([]);
  }, 60_000);

  it('list_changed seen by one process replaces the listing another process holds, from Redis', async () => {
    const keyPrefix = freshPrefix();
    const listening = server(url(), redisCache(keyPrefix));
    const listed = toolsListRequests();
    const since = demo.log.length;
    await listening.listTools();
    const pages = toolsListRequests() - listed;
    await streamOpened(_era, since);

    // Another process (its own McpServer and Redis connections) holds the listing from the
    // cache: it never connected, so it hears no list_changed of its own.
    const otherCache = redisCache(keyPrefix);
    const other = server(url(), otherCache);
    const before = toolsListRequests();
    expect(await other.listTools()).toHaveLength(TOOL_COUNT);
    expect(toolsListRequests()).toBe(before);
    await otherCache.watching();

    await setDynamicTool(true);
    const hasDynamicTool = (holder: McpServer) =>
      holder.getSnapshot().tools?.some((tool) => tool.name === 'dynamic_tool') ?? false;
    await expect.poll(() => hasDynamicTool(other), { timeout: 10_000 }).toBe(true);
    expect(hasDynamicTool(listening)).toBe(true);
    expect((await other.listTools()).some((tool) => tool.name === 'dynamic_tool')).toBe(true);
    // Only the process that heard list_changed listed again; the other read Redis.
    expect(toolsListRequests() - before).toBe(pages);
    expect(other.getSnapshot().status).toBe('cached');
  }, 30_000);

  it('keeps the server’s ttlMs (else the client’s TTL), and no secret in keys or values', async () => {
    const keyPrefix = freshPrefix();
    const token = 'sk-live-0123456789abcdefghij';
    const first = server(url(), redisCache(keyPrefix), {
      headers: { authorization: `Bearer ${token}` },
      cacheTtlMs: 60_000,
    });
    await first.listTools();

    const keys = await raw.keys(`${keyPrefix}*`);
    expect(keys).toHaveLength(1);
    const [key] = keys as [string];
    expect(key).not.toContain(token);
    expect(await raw.get(key)).not.toContain(token);
    const pttl = await raw.pTTL(key);
    if (_era === '2026-07-28') {
      // The 2026-07-28 endpoint sends ttlMs with tools/list; it wins over cacheTtlMs.
      expect(pttl).toBeGreaterThan(60_000);
      expect(pttl).toBeLessThanOrEqual(DEMO_TOOLS_TTL_MS);
    } else {
      expect(pttl).toBeGreaterThan(0);
      expect(pttl).toBeLessThanOrEqual(60_000);
    }
  });
});
