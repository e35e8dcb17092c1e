import {
  InMemoryTransport,
  type JSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/client';
import { McpServer as SdkMcpServer, type RegisteredTool } from '@modelcontextprotocol/server';
import { startDemoServer, type DemoServer } from '@switchboard/fixtures';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { mcpServer, type McpServer } from '../mcp/mcp-server.ts';
import { collectRun, ofType } from '../testing/collect-run.ts';
import { linkedMcpServer } from '../testing/linked-mcp-server.ts';
import { mockModel, textTurn, toolCallTurn } from '../testing/mock-model.ts';
import { tool } from '../tools/tool.ts';
import { Agent } from './agent.ts';

const servers: McpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

/**
 * An SDK server whose `install` tool adds `weather` and removes `old_tool` (the SDK sends
 * `notifications/tools/list_changed` for each change); `sdk` is the live instance.
 */
function changingServer(options: { deferred?: string[]; approval?: string[] } = {}) {
  const live: { sdk?: SdkMcpServer; old?: RegisteredTool } = {};
  const server = linkedMcpServer({
    name: 'shop',
    ...(options.deferred === undefined ? {} : { deferredTools: options.deferred }),
    ...(options.approval === undefined ? {} : { approvalRequiredTools: options.approval }),
    createServer: () => {
      const sdk = new SdkMcpServer({ name: 'shop', version: '1.0.0' });
      live.sdk = sdk;
      live.old = sdk.registerTool(
        'old_tool',
        { description: 'An old tool about inventory', inputSchema: z.object({}) },
        () => text('old'),
      );
      sdk.registerTool(
        'alpha',
        { description: 'Alpha tool about inventory', inputSchema: z.object({}) },
        () => text('alpha ran'),
      );
      sdk.registerTool(
        'install',
        { description: 'Installs the weather tool', inputSchema: z.object({}) },
        () => {
          sdk.registerTool(
            'weather',
            { description: 'The weather forecast for a city', inputSchema: z.object({}) },
            () => text('sunny'),
          );
          live.old?.remove();
          sdk.sendToolListChanged();
          return text('installed');
        },
      );
      return sdk;
    },
  });
  servers.push(server);
  return { server, live };
}

const names = (tools: readonly { name: string }[] | undefined) =>
  (tools ?? []).map((candidate) => candidate.name).sort();

describe('tools that change during a run', () => {
  it('offers a tool added mid-run at the next turn, and a removed tool gets tool_not_found', async () => {
    const { server } = changingServer();
    const model = mockModel([
      toolCallTurn('install', {}),
      toolCallTurn([
        { name: 'weather', arguments: {}, callId: 'w' },
        { name: 'old_tool', arguments: {}, callId: 'o' },
      ]),
      textTurn('Done.'),
    ]);
    const agent = new Agent({ name: 'live', model, mcpServers: [server] });

    const { chunks, result } = await collectRun(agent.execute({ messages: 'install weather' }));

    expect(result.status).toBe('completed');
    expect(names(model.requests[0]?.tools)).toEqual(['alpha', 'install', 'old_tool']);
    expect(names(model.requests[1]?.tools)).toEqual(['alpha', 'install', 'weather']);
    const outputs = new Map(
      ofType(chunks, 'tool.result').map((chunk) => [chunk.callId, chunk.output]),
    );
    expect(outputs.get('w')).toMatchObject({ text: 'sunny' });
    expect(outputs.get('w')?.isError).toBeFalsy();
    expect(outputs.get('o')).toMatchObject({ isError: true, error: { code: 'tool_not_found' } });
    expect(outputs.get('o')?.text).toContain('MCP server "shop" removed it during this run');
    expect(ofType(chunks, 'tool.call').find((chunk) => chunk.callId === 'o')?.server).toBe('shop');
  });

  it('refreshes the tool_search index and keeps activated deferred tools activated', async () => {
    const { server } = changingServer({ deferred: ['alpha', 'weather', 'old_tool'] });
    const model = mockModel([
      toolCallTurn('tool_search', { query: 'select:alpha' }),
      toolCallTurn('install', {}),
      toolCallTurn('tool_search', { query: 'weather forecast' }),
      toolCallTurn('weather', {}),
      textTurn('Sunny.'),
    ]);
    const agent = new Agent({ name: 'live', model, mcpServers: [server] });

    const { chunks, result } = await collectRun(agent.execute({ messages: 'weather?' }));

    expect(result.status).toBe('completed');
    expect(names(model.requests[1]?.tools)).toEqual(['alpha', 'install', 'tool_search']);
    // After `install`: alpha stays loaded; weather waits to be found, and the section says so.
    expect(names(model.requests[2]?.tools)).toEqual(['alpha', 'install', 'tool_search']);
    expect(model.requests[2]?.instructions).toContain('- weather: The weather forecast');
    expect(model.requests[2]?.instructions).not.toContain('old_tool');
    expect(ofType(chunks, 'tool.result')[2]?.output.text).toContain('- weather:');
    expect(names(model.requests[3]?.tools)).toEqual(['alpha', 'install', 'tool_search', 'weather']);
    expect(ofType(chunks, 'tool.result')[3]?.output.text).toBe('sunny');
  });

  it('reuses the listing when nothing changed: no tools/list per turn', async () => {
    const sent: string[] = [];
    const server = mcpServer({
      name: 'counted',
      createTransport: (): Transport => {
        const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
        const sdk = new SdkMcpServer({ name: 'counted', version: '1.0.0' });
        sdk.registerTool('ping', { inputSchema: z.object({}) }, () => text('pong'));
        const send = clientSide.send.bind(clientSide);
        clientSide.send = async (message: JSONRPCMessage, options) => {
          if ('method' in message) sent.push(message.method);
          await send(message, options);
        };
        const close = clientSide.close.bind(clientSide);
        clientSide.close = async () => {
          await close();
          await sdk.close();
        };
        void sdk.connect(serverSide);
        return clientSide;
      },
    });
    servers.push(server);
    const model = mockModel([
      toolCallTurn('ping', {}),
      toolCallTurn('ping', {}),
      toolCallTurn('ping', {}),
      textTurn('Done.'),
    ]);
    const agent = new Agent({ name: 'live', model, mcpServers: [server] });

    const { result } = await collectRun(agent.execute({ messages: 'ping thrice' }));

    expect(result.status).toBe('completed');
    expect(sent.filter((method) => method === 'tools/list')).toHaveLength(1);
    expect(sent.filter((method) => method === 'tools/call')).toHaveLength(3);
  });

  it('a resumed run: a tool removed while the run was paused gets tool_not_found', async () => {
    const { server, live } = changingServer({ approval: ['old_tool'] });
    const model = mockModel([
      toolCallTurn([{ name: 'old_tool', arguments: {}, callId: 'c1' }]),
      textTurn('Done.'),
    ]);
    const agent = new Agent({ name: 'live', model, mcpServers: [server] });

    const paused = await collectRun(agent.execute({ threadId: 't', messages: 'old' }));
    expect(paused.result.status).toBe('paused');
    live.old?.remove();
    live.sdk?.sendToolListChanged();
    await expect.poll(() => names(server.getSnapshot().tools).includes('old_tool')).toBe(false);

    const resumed = await collectRun(
      agent.execute({ threadId: 't', resolutions: [{ callId: 'c1', action: 'approve' }] }),
    );
    expect(resumed.result.status).toBe('completed');
    const output = ofType(resumed.chunks, 'tool.result')[0]?.output;
    expect(output).toMatchObject({ isError: true, error: { code: 'tool_not_found' } });
    expect(output?.text).toContain('MCP server "shop" removed it during this run');
  });
});

describe('tools that change during a run, over HTTP (demo server)', () => {
  let demo: DemoServer;
  beforeAll(async () => {
    demo = await startDemoServer();
  });
  afterAll(async () => {
    await demo.close();
  });
  afterEach(async () => {
    await fetch(`${demo.url}/control/tools-changed`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ enabled: false }),
    });
  });

  it.each([
    ['legacy', () => demo.legacyUrl],
    ['modern', () => demo.modernUrl],
  ])('the next turn offers and calls dynamic_tool (%s era)', async (_era, url) => {
    const server = mcpServer({ url: url(), name: 'demo' });
    servers.push(server);
    const listens = () =>
      demo.log.filter((entry) => entry.rpcMethod === 'subscriptions/listen').length;
    const listensBefore = listens();
    // A local tool that adds `dynamic_tool` on the server and waits until the server's list
    // shows it (`list_changed` arrives within milliseconds).
    const addTool = tool({
      name: 'add_tool',
      description: 'Adds dynamic_tool on the demo server',
      input: z.object({}),
      execute: async () => {
        if (_era === 'modern') {
          // The 2026-07-28 `list_changed` stream opens after the first listing.
          await expect.poll(listens).toBeGreaterThan(listensBefore);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        await fetch(`${demo.url}/control/tools-changed`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ enabled: true }),
        });
        await expect
          .poll(() => names(server.getSnapshot().tools).includes('dynamic_tool'), {
            timeout: 5000,
          })
          .toBe(true);
        return 'added';
      },
    });
    const model = mockModel([
      toolCallTurn('add_tool', {}),
      toolCallTurn('dynamic_tool', {}),
      textTurn('Done.'),
    ]);
    const agent = new Agent({ name: 'live', model, tools: [addTool], mcpServers: [server] });

    const { chunks, result } = await collectRun(agent.execute({ messages: 'add it' }));

    expect(result.status, result.error?.message).toBe('completed');
    expect(names(model.requests[0]?.tools)).not.toContain('dynamic_tool');
    expect(names(model.requests[1]?.tools)).toContain('dynamic_tool');
    const output = ofType(chunks, 'tool.result')[1]?.output;
    expect(output?.isError).toBeFalsy();
    expect(output?.text).toBe('dynamic_tool is here.');
  });
});
