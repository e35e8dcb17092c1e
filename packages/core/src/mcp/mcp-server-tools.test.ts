import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDemoServer, type DemoServer } from '@switchboard/fixtures';
import { mcpServer, type McpServer, type McpServerOptions } from './mcp-server.ts';
import { MemorySchemaCache } from './memory-schema-cache.ts';
import { mapProviderToolNames } from './provider-tool-names.ts';
import { schemaCacheKey } from './schema-cache-key.ts';

let demo: DemoServer;
beforeAll(async () => {
  demo = await startDemoServer({ toolCount: 45, pageSize: 20 });
});
afterAll(async () => {
  await demo.close();
});

const opened: McpServer[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((server) => server.close()));
  await fetch(`${demo.url}/control/tools-changed`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ enabled: false }),
  });
});

function server(url: string, options: Partial<McpServerOptions> = {}): McpServer {
  const created = mcpServer({ url, name: 'demo', ...options });
  opened.push(created);
  return created;
}

describe('McpServer tool listing', () => {
  it.each([
    ['legacy', () => demo.legacyUrl],
    ['modern', () => demo.modernUrl],
  ])('follows every page (%s era)', async (_era, url) => {
    const before = demo.log.filter((entry) => entry.rpcMethod === 'tools/list').length;
    const tools = await server(url()).listTools();
    expect(tools.length).toBeGreaterThanOrEqual(45 + 11);
    const pages = demo.log.filter((entry) => entry.rpcMethod === 'tools/list').length - before;
    expect(pages).toBe(Math.ceil(tools.length / 20));
  });

  it('applies toolFilter, toolPrefix, deferredTools and approvalRequiredTools', async () => {
    const tools = await server(demo.legacyUrl, {
      toolFilter: ['read_file', 'delete_file', 'slow_count'],
      toolPrefix: 'demo.',
      deferredTools: ['slow_count'],
      approvalRequiredTools: ['delete_file'],
    }).listTools();
    expect(tools.map((tool) => [tool.name, tool.originalName]).sort()).toEqual([
      ['demo_delete_file', 'delete_file'],
      ['demo_read_file', 'read_file'],
      ['demo_slow_count', 'slow_count'],
    ]);
    const byName = new Map(tools.map((tool) => [tool.originalName, tool]));
    expect(byName.get('slow_count')?.deferred).toBe(true);
    expect(byName.get('delete_file')?.needsApproval).toBe(true);
    expect(byName.get('read_file')?.needsApproval).toBeUndefined();
    expect(byName.get('delete_file')?.annotations).toEqual({
      destructiveHint: true,
      readOnlyHint: false,
    });
  });

  it("'*' marks every tool", async () => {
    const tools = await server(demo.legacyUrl, {
      deferredTools: '*',
      approvalRequiredTools: '*',
    }).listTools();
    expect(tools.every((tool) => tool.deferred === true && tool.needsApproval === true)).toBe(true);
  });

  it('lists from a warm schema cache with zero requests, then connects without probing again', async () => {
    const schemaCache = new MemorySchemaCache();
    const headers = { authorization: 'Bearer secret-token' };
    const cold = await server(demo.legacyUrl, { schemaCache, headers }).listTools();
    const requestsBefore = demo.log.length;

    const warmServer = server(demo.legacyUrl, { schemaCache, headers });
    const warm = await warmServer.listTools();
    expect(warm.map((tool) => tool.name)).toEqual(cold.map((tool) => tool.name));
    expect(demo.log.slice(requestsBefore)).toEqual([]);
    expect(warmServer.getSnapshot()).toMatchObject({ status: 'cached', protocolEra: 'legacy' });

    const output = await warmServer.callTool('read_file', { path: 'a.txt' });
    expect(output.text).toContain('Contents of a.txt');
    const after = demo.log.slice(requestsBefore).map((entry) => entry.rpcMethod);
    expect(after).not.toContain('server/discover');
    expect(after).toContain('initialize');
    expect(after).toContain('tools/call');
  });

  it('pairs each listed tool with its provider name, unchanged or mapped, and keeps one of a name listed twice', async () => {
    // Stored as a server would have listed them: the listing is read from the cache (no
    // request), so the names can be ones the demo server does not have.
    const listed = (name: string, description: string) => ({
      name,
      description,
      inputSchema: { type: 'object' },
    });
    const schemaCache = new MemorySchemaCache();
    const key = await schemaCacheKey({ url: demo.legacyUrl, transport: 'streamable-http' });
    const store = async (tools: unknown[]) =>
      await schemaCache.set(key, { tools, storedAt: Date.now(), expiresAt: Infinity });
    const described = async () =>
      (await server(demo.legacyUrl, { schemaCache }).listTools()).map((tool) => [
        tool.name,
        tool.originalName,
        tool.description,
      ]);

    await store([listed('tool_001', 'first'), listed('echo', 'second')]);
    expect(await described()).toEqual([
      ['tool_001', 'tool_001', 'first'],
      ['echo', 'echo', 'second'],
    ]);

    await store([listed('a_b', 'valid'), listed('echo', 'plain'), listed('a.b', 'replaced')]);
    const [validName, replacedName] = [
      ...mapProviderToolNames(['a_b', 'echo', 'a.b']).keys(),
    ].filter((name) => name !== 'echo');
    expect(await described()).toEqual([
      [validName, 'a_b', 'valid'],
      ['echo', 'echo', 'plain'],
      [replacedName, 'a.b', 'replaced'],
    ]);

    await store([listed('echo', 'earlier'), listed('add', 'sum'), listed('echo', 'later')]);
    const [echoName] = mapProviderToolNames(['echo', 'add', 'echo']).keys();
    expect(await described()).toEqual([
      [echoName, 'echo', 'later'],
      ['add', 'add', 'sum'],
    ]);
  });

  it('does not share a cache entry between different credentials, and invalidate() forgets it', async () => {
    const schemaCache = new MemorySchemaCache();
    await server(demo.legacyUrl, {
      schemaCache,
      headers: { authorization: 'Bearer a' },
    }).listTools();
    const lists = () => demo.log.filter((entry) => entry.rpcMethod === 'tools/list').length;
    const before = lists();
    await server(demo.legacyUrl, {
      schemaCache,
      headers: { authorization: 'Bearer b' },
    }).listTools();
    expect(lists()).toBeGreaterThan(before);

    const again = server(demo.legacyUrl, { schemaCache, headers: { authorization: 'Bearer a' } });
    await again.invalidate();
    const beforeInvalidated = lists();
    await again.listTools();
    expect(lists()).toBeGreaterThan(beforeInvalidated);
  });

  it('honours cacheTtlMs', async () => {
    const schemaCache = new MemorySchemaCache();
    await server(demo.legacyUrl, { schemaCache, cacheTtlMs: 400 }).listTools();
    const lists = () => demo.log.filter((entry) => entry.rpcMethod === 'tools/list').length;
    const before = lists();
    await server(demo.legacyUrl, { schemaCache, cacheTtlMs: 400 }).listTools();
    expect(lists()).toBe(before);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await server(demo.legacyUrl, { schemaCache, cacheTtlMs: 400 }).listTools();
    expect(lists()).toBeGreaterThan(before);
  });

  it('re-lists every page on notifications/tools/list_changed and replaces the tools', async () => {
    const schemaCache = new MemorySchemaCache();
    const watched = server(demo.legacyUrl, { schemaCache });
    const first = await watched.listTools();
    expect(first.some((tool) => tool.name === 'dynamic_tool')).toBe(false);
    await fetch(`${demo.url}/control/tools-changed`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ enabled: true }),
    });
    await expect
      .poll(() => watched.getSnapshot().tools?.some((tool) => tool.name === 'dynamic_tool'), {
        timeout: 5000,
      })
      .toBe(true);
    expect((await watched.listTools()).some((tool) => tool.name === 'dynamic_tool')).toBe(true);
    // The cache holds the new listing too.
    const fresh = server(demo.legacyUrl, { schemaCache });
    expect((await fresh.listTools()).some((tool) => tool.name === 'dynamic_tool')).toBe(true);
  });

  it('re-lists on list_changed from a subscriptions/listen stream (2026-07-28)', async () => {
    const watched = server(demo.modernUrl);
    const listensBefore = demo.log.filter(
      (entry) => entry.rpcMethod === 'subscriptions/listen',
    ).length;
    await watched.listTools();
    // The stream opens right after the first listing; a change before it is acknowledged is missed.
    await expect
      .poll(() => demo.log.filter((entry) => entry.rpcMethod === 'subscriptions/listen').length)
      .toBe(listensBefore + 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await fetch(`${demo.url}/control/tools-changed`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ enabled: true }),
    });
    await expect
      .poll(() => watched.getSnapshot().tools?.some((tool) => tool.name === 'dynamic_tool'), {
        timeout: 5000,
      })
      .toBe(true);
  });
});

describe('McpServer results', () => {
  it('keeps structuredContent that matches the outputSchema', async () => {
    const demoServer = server(demo.legacyUrl);
    await demoServer.listTools();
    const output = await demoServer.callTool('get_weather', { city: 'Oslo' });
    expect(output.isError).toBeUndefined();
    expect(output.structuredContent).toMatchObject({ city: 'Oslo' });
  });

  it('turns isError and JSON-RPC errors into error outputs with code and message', async () => {
    const demoServer = server(demo.legacyUrl);
    expect(await demoServer.callTool('fail', {})).toMatchObject({ isError: true });
    const thrown = await demoServer.callTool('throw_error', { message: 'boom' });
    expect(thrown).toMatchObject({ isError: true, error: { code: -32603 } });
    expect(thrown.text).toContain('boom');
  });
});
