import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startDemoServer, type DemoServer } from '@switchboard/fixtures';
import { describeError } from '../errors/describe-error.ts';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import { mcpServer, type McpServer } from './mcp-server.ts';

/**
 * A browser that is offline (`navigator.onLine === false`) cannot send an MCP request: the
 * session fetch says so at once with `connection_refused` (`details.reason: 'offline'`) and
 * sends nothing, instead of leaving the call to its time limits — against the real demo server
 * of both protocol eras.
 */
let demo: DemoServer;
beforeAll(async () => {
  demo = await startDemoServer();
});
afterAll(async () => {
  await demo.close();
});

const opened: McpServer[] = [];
afterEach(async () => {
  vi.unstubAllGlobals();
  await Promise.all(opened.splice(0).map((server) => server.close()));
});

async function failureOf(promise: Promise<unknown>): Promise<SwitchboardError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SwitchboardError) return error;
    throw error;
  }
  throw new Error('expected a SwitchboardError');
}

describe('MCP requests while the browser is offline', () => {
  it.each([
    ['2025-11-25', () => demo.legacyUrl],
    ['2026-07-28', () => demo.modernUrl],
  ])('a tool call fails at once and is never sent (%s era)', async (_era, url) => {
    const server = mcpServer({ url: url(), name: 'demo' });
    opened.push(server);
    await server.listTools();
    const callsBefore = demo.log.filter((entry) => entry.rpcMethod === 'tools/call').length;

    vi.stubGlobal('navigator', { onLine: false });
    const error = await failureOf(server.callTool('get_weather', { city: 'Oslo' }));
    expect(error.code).toBe('connection_refused');
    expect(error.details).toEqual({ reason: 'offline', host: new URL(url()).host });
    expect(demo.log.filter((entry) => entry.rpcMethod === 'tools/call').length).toBe(callsBefore);
    const { sentence } = describeError(error, { server: 'demo' });
    expect(sentence).toMatch(/^You are offline/);
    expect(sentence).not.toMatch(/not running|CORS/);

    // Back online, the same connection works again.
    vi.unstubAllGlobals();
    expect(await server.callTool('get_weather', { city: 'Oslo' })).toMatchObject({
      structuredContent: { city: 'Oslo' },
    });
  });

  it('connecting while offline fails at once with the same code', async () => {
    vi.stubGlobal('navigator', { onLine: false });
    const server = mcpServer({ url: demo.modernUrl, name: 'demo' });
    opened.push(server);
    const error = await failureOf(server.listTools());
    expect(error.code).toBe('connection_refused');
    expect(error.details).toMatchObject({ reason: 'offline' });
  });
});
