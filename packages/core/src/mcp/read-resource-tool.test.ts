import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoServer, type DemoServer } from '@switchboard/fixtures';
import type { ToolContext } from '../tools/tool-types.ts';
import type { ToolOutput } from '../vocabulary/items.ts';
import { mcpServer, type McpServer } from './mcp-server.ts';
import { readResourceTool } from './read-resource-tool.ts';

// The opt-in read_resource meta-tool against the demo server (127.0.0.1, 2026-07-28 endpoint).

let demo: DemoServer;
let server: McpServer;
beforeAll(async () => {
  demo = await startDemoServer({ toolCount: 0 });
  server = mcpServer({ url: demo.modernUrl, name: 'demo' });
});
afterAll(async () => {
  await server.close();
  await demo.close();
});

function context(): ToolContext {
  return { callId: 'c1', signal: new AbortController().signal } as unknown as ToolContext;
}

async function read(args: Record<string, unknown>): Promise<ToolOutput> {
  return (await readResourceTool([server]).execute(args, context())) as ToolOutput;
}

describe('readResourceTool', () => {
  it('reads text, an image as an image part, and names a body too large to include', async () => {
    expect((await read({ uri: 'demo://docs/readme' })).text).toContain('# Switchboard demo server');
    const pixel = await read({ uri: 'demo://images/pixel.png', server: 'demo' });
    expect(pixel.parts).toEqual([
      { type: 'image', mimeType: 'image/png', data: expect.stringMatching(/^iVBOR/) as string },
    ]);
    expect(pixel.text).toBe('[Binary resource demo://images/pixel.png (image/png, 70 bytes)]');
    expect((await read({ uri: 'demo://files/large.bin' })).text).toBe(
      '[Resource demo://files/large.bin (application/octet-stream, 2097152 bytes) is too large to include.]',
    );
  });

  it('answers an unknown resource or server with an error output', async () => {
    const missing = await read({ uri: 'demo://nowhere' });
    expect(missing.isError).toBe(true);
    expect(missing.error?.code).toBe('mcp_error');
    const unknown = await read({ uri: 'demo://docs/readme', server: 'other' });
    expect(unknown).toMatchObject({ isError: true, error: { code: 'invalid_tool_arguments' } });
  });
});
