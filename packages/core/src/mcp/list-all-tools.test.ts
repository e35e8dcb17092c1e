import { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { startFaultyMcpServer, type FaultyMcpServer } from '@switchboard/fixtures';
import { isSwitchboardError, SwitchboardError } from '../errors/switchboard-error.ts';
import { listAllTools, MAX_TOOL_PAGES } from './list-all-tools.ts';
import { mcpServer, type McpServer } from './mcp-server.ts';

// Issue 14, item 2: the listing is ours, one `tools/list` request per page, so a server whose
// cursors never end is stopped by our guard (at the first repeated cursor, or at the page cap)
// and not by the SDK's own walk (64 requests, then an `SdkError`).

const started: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((item) => item.close()));
});

async function faulty(
  options: Parameters<typeof startFaultyMcpServer>[0],
): Promise<{ server: FaultyMcpServer; client: McpServer }> {
  const server = await startFaultyMcpServer(options);
  started.push(server);
  const client = mcpServer({ url: server.url, name: 'faulty' });
  started.push(client);
  return { server, client };
}

function toolsListRequests(server: FaultyMcpServer): number {
  return server.methods.filter((method) => method === 'tools/list').length;
}

describe('listing a real server page by page (127.0.0.1)', () => {
  it('fetches each page once: 3 pages, 3 requests, every tool', async () => {
    const { server, client } = await faulty({ toolPages: 3 });
    const tools = await client.listTools();
    expect(tools).toHaveLength(9);
    expect(toolsListRequests(server)).toBe(3);
  });

  it('stops at the first repeated cursor with invalid_response naming it', async () => {
    const { server, client } = await faulty({ toolPages: 3, repeatToolCursor: true });
    const error = await client.listTools().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SwitchboardError);
    expect(isSwitchboardError(error, 'invalid_response')).toBe(true);
    expect((error as Error).message).toMatch(
      /^MCP server "faulty".* repeated the tools\/list cursor "page-1" after 3 pages; stopped to avoid a loop\.$/,
    );
    // page 0 → "page-1", page 1 → "page-2", page 2 → "page-1" again: three pages, three requests.
    expect(toolsListRequests(server)).toBe(3);
  });

  it('stops a single page that names itself after 2 requests', async () => {
    const { server, client } = await faulty({ toolPages: 1, repeatToolCursor: true });
    const error = await client.listTools().catch((caught: unknown) => caught);
    expect(isSwitchboardError(error, 'invalid_response')).toBe(true);
    expect((error as Error).message).toContain('repeated the tools/list cursor "page-0"');
    expect(toolsListRequests(server)).toBe(2);
  });

  it(`stops after ${MAX_TOOL_PAGES} pages that never end, naming the next cursor`, async () => {
    const { server, client } = await faulty({ endlessToolPages: true });
    const error = await client.listTools().catch((caught: unknown) => caught);
    expect(isSwitchboardError(error, 'invalid_response')).toBe(true);
    expect((error as Error).message).toContain(
      `sent more than ${MAX_TOOL_PAGES} pages of tools (next cursor "page-${MAX_TOOL_PAGES}")`,
    );
    expect(toolsListRequests(server)).toBe(MAX_TOOL_PAGES);
  });

  it('lists again after a failed listing (nothing cached, nothing kept)', async () => {
    const { server, client } = await faulty({ toolPages: 2, repeatToolCursor: true });
    await expect(client.listTools()).rejects.toThrow(/repeated the tools\/list cursor/);
    await expect(client.listTools()).rejects.toThrow(/repeated the tools\/list cursor/);
    expect(toolsListRequests(server)).toBe(4);
  });
});

describe('listAllTools paging guard', () => {
  const where = 'MCP server "fake"';

  /** A client whose every `tools/list` page comes from `page`, counting the requests. */
  function fakeClient(page: (params: { cursor?: string }) => unknown): {
    client: Client;
    requests: { cursor?: string }[];
  } {
    const requests: { cursor?: string }[] = [];
    const client = {
      getServerCapabilities: () => ({ tools: {} }),
      request: async (request: { method: string; params: { cursor?: string } }) => {
        expect(request.method).toBe('tools/list');
        requests.push(request.params);
        return page(request.params);
      },
    } as unknown as Client;
    return { client, requests };
  }

  it('stops on a repeated cursor, naming it', async () => {
    const { client, requests } = fakeClient((params) => ({
      tools: [{ name: `t${params.cursor ?? 0}`, inputSchema: { type: 'object' } }],
      nextCursor: 'a',
    }));
    const error = await listAllTools(client, where, undefined).catch((caught: unknown) => caught);
    expect(isSwitchboardError(error, 'invalid_response')).toBe(true);
    expect((error as Error).message).toBe(
      'MCP server "fake" repeated the tools/list cursor "a" after 2 pages; stopped to avoid a loop.',
    );
    expect(requests).toEqual([{}, { cursor: 'a' }]);
  });

  it('stops after the page cap, naming the next cursor', async () => {
    let page = 0;
    const { client, requests } = fakeClient(() => ({ tools: [], nextCursor: `c${page++}` }));
    const error = await listAllTools(client, where, undefined).catch((caught: unknown) => caught);
    expect(isSwitchboardError(error, 'invalid_response')).toBe(true);
    expect((error as Error).message).toContain(`more than ${MAX_TOOL_PAGES} pages`);
    expect((error as Error).message).toContain(`"c${MAX_TOOL_PAGES - 1}"`);
    expect(requests).toHaveLength(MAX_TOOL_PAGES);
  });

  it('quotes at most 40 characters of a cursor, scrubbed', async () => {
    const cursor = `secret-token${'x'.repeat(60)}`;
    const { client } = fakeClient(() => ({ tools: [], nextCursor: cursor }));
    const error = await listAllTools(client, where, undefined, undefined, (text) =>
      text.replaceAll('secret-token', '[redacted]'),
    ).catch((caught: unknown) => caught);
    expect((error as Error).message).toContain(`"[redacted]${'x'.repeat(30)}…"`);
    expect((error as Error).message).not.toContain('secret-token');
  });

  it('keeps the first page’s ttlMs and cacheScope', async () => {
    const { client } = fakeClient((params) =>
      params.cursor === undefined
        ? { tools: [], nextCursor: 'b', ttlMs: 5000, cacheScope: 'public' }
        : { tools: [{ name: 'b', inputSchema: { type: 'object' } }], ttlMs: 1 },
    );
    expect(await listAllTools(client, where, undefined)).toEqual({
      tools: [{ name: 'b', inputSchema: { type: 'object' } }],
      ttlMs: 5000,
      cacheScope: 'public',
    });
  });

  it('asks nothing of a server without the tools capability', async () => {
    const { client, requests } = fakeClient(() => ({ tools: [] }));
    (client as unknown as { getServerCapabilities: () => unknown }).getServerCapabilities =
      () => ({});
    expect(await listAllTools(client, where, undefined)).toEqual({ tools: [] });
    expect(requests).toEqual([]);
  });
});

describe('the SDK hook listAllTools relies on', () => {
  // SEP-2243 exclusion of tools with an invalid `x-mcp-header` (2026-07-28) runs through the
  // SDK's own private filter on each page we fetch; the conformance scenario
  // `http-invalid-tool-headers` checks the behaviour end to end. This canary names the cause
  // if an SDK update renames the filter.
  it('Client still has _excludeInvalidXMcpHeaderTools', () => {
    expect(typeof Reflect.get(Client.prototype, '_excludeInvalidXMcpHeaderTools')).toBe('function');
  });
});
