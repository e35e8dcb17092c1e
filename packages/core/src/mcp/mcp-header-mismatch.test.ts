import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDemoServer, type DemoServer } from '@switchboard/fixtures';
import { mcpServer, type McpServer } from './mcp-server.ts';

// Issue 14, item 5: a 2026-07-28 server answers -32020 (HeaderMismatch) when the client mirrored
// `x-mcp-header` arguments by an old listing. As SDK v2's `callTool` does, the client re-lists the
// tools and retries the call once with the new declarations; only a second -32020 is the output.

let demo: DemoServer;
beforeAll(async () => {
  demo = await startDemoServer({ toolCount: 0 });
});
afterAll(async () => {
  await demo.close();
});

const opened: McpServer[] = [];
afterEach(async () => {
  demo.faults.reset();
  await Promise.all(opened.splice(0).map((server) => server.close()));
});

function countOf(method: string): number {
  return demo.log.filter((entry) => entry.rpcMethod === method).length;
}

describe('-32020 HeaderMismatch recovery (2026-07-28)', () => {
  it('re-lists the tools and retries once with the declared Mcp-Param-* header', async () => {
    const client = mcpServer({ url: demo.modernUrl, name: 'demo' });
    opened.push(client);
    const listed = await client.listTools();
    expect(
      listed.find((tool) => tool.originalName === 'get_weather')?.inputSchema,
    ).not.toHaveProperty('properties.city.x-mcp-header');
    demo.faults.headerMismatch = true;
    const listsBefore = countOf('tools/list');
    const callsBefore = countOf('tools/call');

    const output = await client.callTool('get_weather', { city: 'Lyon' });

    expect(output.isError).toBeUndefined();
    expect(output.structuredContent).toMatchObject({ city: 'Lyon' });
    expect(countOf('tools/call') - callsBefore).toBe(2);
    expect(countOf('tools/list') - listsBefore).toBe(1);
    const relisted = client
      .getSnapshot()
      .tools?.find((tool) => tool.originalName === 'get_weather');
    expect(relisted?.inputSchema).toHaveProperty(['properties', 'city', 'x-mcp-header'], 'City');
  });

  it('returns the -32020 error output when the retry mismatches too', async () => {
    const client = mcpServer({ url: demo.modernUrl, name: 'demo' });
    opened.push(client);
    await client.listTools();
    demo.faults.headerMismatch = true;
    const callsBefore = countOf('tools/call');
    // A city that is not a plain header value goes base64-encoded; the demo server compares the
    // raw header, so the retry mismatches as well.
    const output = await client.callTool('get_weather', { city: 'Zürich' });
    expect(output.isError).toBe(true);
    expect(output.error?.code).toBe(-32020);
    expect(output.text).toContain('-32020');
    expect(countOf('tools/call') - callsBefore).toBe(2);
  });
});
