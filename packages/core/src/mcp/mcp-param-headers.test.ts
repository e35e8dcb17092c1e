import { createServer, type IncomingHttpHeaders } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { mcpServer } from './mcp-server.ts';

// Issue 14, item 6: `Mcp-Param-*` mirroring on the wire, against a real 2026-07-28 server (SDK
// v2, `createMcpHandler`), which also checks the headers it gets against the arguments.

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((thing) => thing.close()));
});

const ROUTE_TOOL = {
  name: 'route',
  description: 'Routes by region',
  inputSchema: {
    type: 'object',
    properties: {
      region: { type: 'string', 'x-mcp-header': 'Region' },
      zone: { type: 'integer', 'x-mcp-header': 'Zone' },
      dry: { type: 'boolean', 'x-mcp-header': 'Dry' },
      query: { type: 'string' },
    },
    required: ['region'],
  },
};

/** A 2026-07-28 server listing {@link ROUTE_TOOL}; records the headers of each `tools/call`. */
async function startServer(): Promise<{ url: string; calls: IncomingHttpHeaders[] }> {
  const { McpServer: SdkServer, createMcpHandler } = await import('@modelcontextprotocol/server');
  const { toNodeHandler } = await import('@modelcontextprotocol/node');
  const handler = createMcpHandler(() => {
    const sdk = new SdkServer(
      { name: 'headers', version: '1.0.0' },
      { capabilities: { tools: {} } },
    );
    sdk.server.setRequestHandler('tools/list', () => ({ tools: [ROUTE_TOOL as never] }));
    sdk.server.setRequestHandler('tools/call', () => ({
      content: [{ type: 'text', text: 'routed' }],
    }));
    return sdk;
  });
  const node = toNodeHandler(handler);
  const calls: IncomingHttpHeaders[] = [];
  const http = createServer((request, response) => {
    if (request.headers['mcp-method'] === 'tools/call') calls.push(request.headers);
    void node(request as never, response);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as { port: number };
  opened.push({
    close: async () => {
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  });
  return { url: `http://127.0.0.1:${port}/mcp`, calls };
}

describe('Mcp-Param-* headers on tools/call (2026-07-28, real server)', () => {
  it('mirrors the x-mcp-header arguments, encoded, and nothing else', async () => {
    const { url, calls } = await startServer();
    const server = mcpServer({ url, name: 'headers' });
    opened.push(server);
    const tools = await server.listTools();
    const route = tools.find((tool) => tool.originalName === 'route');
    expect(route).toBeDefined();

    const output = await server.callTool('route', {
      region: 'Zürich ',
      zone: 7,
      dry: null,
      query: 'SELECT 1',
    });
    expect(output.isError).not.toBe(true);
    expect(output.text).toBe('routed');
    const headers = calls.at(-1) ?? {};
    expect(headers['mcp-param-region']).toBe(
      `=?base64?${Buffer.from('Zürich ', 'utf8').toString('base64')}?=`,
    );
    expect(headers['mcp-param-zone']).toBe('7');
    expect(headers['mcp-param-dry']).toBeUndefined();
    expect(Object.keys(headers).filter((name) => name.startsWith('mcp-param-'))).toEqual([
      'mcp-param-region',
      'mcp-param-zone',
    ]);
  });
});
