import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../agent/agent.ts';
import type { Chunk } from '../agent/chunks.ts';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import { openaiChatModel } from '../openai/openai-chat-model.ts';
import { startDemoServer, type DemoServer } from '@switchboard/fixtures';
import { scriptFromReplies, type ScriptedReply } from '@switchboard/fixtures';
import { startScriptedModelServer, type ScriptedModelServer } from '@switchboard/fixtures';
import { mcpServer, type McpServer, type McpServerOptions } from './mcp-server.ts';

let demo: DemoServer;
beforeAll(async () => {
  demo = await startDemoServer({ toolCount: 5 });
});
afterAll(async () => {
  await demo.close();
});

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((thing) => thing.close()));
});

async function scripted(replies: ScriptedReply[]): Promise<ScriptedModelServer> {
  const server = await startScriptedModelServer({ script: scriptFromReplies(replies) });
  opened.push(server);
  return server;
}

function server(url: string, options: Partial<McpServerOptions> = {}): McpServer {
  const created = mcpServer({ url, name: 'demo', ...options });
  opened.push(created);
  return created;
}

function agentFor(model: ScriptedModelServer, servers: McpServer[], history: MemoryHistoryStore) {
  return new Agent({
    name: 'elicitation',
    model: openaiChatModel({ baseURL: `${model.url}/v1`, model: 'scripted', maxRetries: 0 }),
    mcpServers: servers,
    history,
  });
}

/** `tools/call` requests the demo server answered (tests in this file run one at a time). */
const callsOf = (_tool: string) =>
  demo.log.filter((entry) => entry.rpcMethod === 'tools/call' && entry.status < 300).length;

/** A stateless 2025-era server whose one tool always answers -32042 for the same URL. */
async function startLoopingUrlServer(): Promise<{
  url: string;
  calls(): number;
  close(): Promise<void>;
}> {
  const { McpServer: SdkServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { StreamableHTTPServerTransport } =
    await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const { UrlElicitationRequiredError } = await import('@modelcontextprotocol/sdk/types.js');
  const { createServer } = await import('node:http');
  let calls = 0;
  const http = createServer((request, response) => {
    const sdk = new SdkServer({ name: 'looping', version: '1.0.0' });
    sdk.registerTool('needs_login', { description: 'Always needs a login' }, async () => {
      calls += 1;
      throw new UrlElicitationRequiredError([
        { mode: 'url', url: 'https://example.com/login', message: 'Log in', elicitationId: 'e1' },
      ]);
    });
    // No sessionIdGenerator: stateless.
    const transport = new StreamableHTTPServerTransport({});
    response.on('close', () => void transport.close());
    void sdk.connect(transport).then(() => transport.handleRequest(request, response));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const address = http.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}/mcp`,
    calls: () => calls,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

const bookingAnswer = { name: 'Ada', date: '2026-12-24', confirm: true };
const booked = "Booked a table at Luigi's for 2 guests on 2026-12-24 (indoor) under Ada.";

function outputOf(result: { output: { type: string }[] }, callId: string): unknown {
  return result.output.find(
    (item) =>
      item.type === 'function_call_output' && (item as { callId?: string }).callId === callId,
  );
}

describe('MCP elicitation as interrupts', () => {
  it('MRTR (2026-07-28): a form pauses the run, and a brand-new agent and client finish it', async () => {
    const model = await scripted([
      { toolCalls: [{ id: 'book', name: 'book_table', arguments: { restaurant: "Luigi's" } }] },
      { text: 'Done.' },
    ]);
    const history = new MemoryHistoryStore();
    const first = agentFor(model, [server(demo.modernUrl)], history);
    const paused = await first.execute({ threadId: 't-mrtr', messages: 'book' }).result();
    expect(paused.status).toBe('paused');
    expect(paused.interrupts).toHaveLength(1);
    expect(paused.interrupts[0]).toMatchObject({
      callId: 'book',
      toolName: 'book_table',
      server: 'demo',
      mode: 'form',
      message: expect.stringContaining("Luigi's"),
      requestedSchema: { type: 'object', required: ['name', 'date'] },
    });

    // "After a reload": nothing of the first agent or its client is used.
    const second = agentFor(model, [server(demo.modernUrl)], history);
    const result = await second
      .execute({
        threadId: 't-mrtr',
        resolutions: [{ callId: 'book', action: 'approve', content: bookingAnswer }],
      })
      .result();
    expect(result.status).toBe('completed');
    expect(result.runId).toBe(paused.runId);
    expect(outputOf(result, 'book')).toMatchObject({ output: { text: booked } });
  });

  it('MRTR: decline reaches the server as decline', async () => {
    const model = await scripted([
      { toolCalls: [{ id: 'book', name: 'book_table', arguments: {} }] },
      { text: 'ok' },
    ]);
    const agent = agentFor(model, [server(demo.modernUrl)], new MemoryHistoryStore());
    await agent.execute({ threadId: 't', messages: 'book' }).result();
    const result = await agent
      .execute({ threadId: 't', resolutions: [{ callId: 'book', action: 'reject' }] })
      .result();
    expect(outputOf(result, 'book')).toMatchObject({
      output: { text: 'The user declined the booking; nothing was booked.' },
    });
  });

  it('an invalid form answer is refused before anything is sent, and the interrupt stays', async () => {
    const model = await scripted([
      { toolCalls: [{ id: 'book', name: 'book_table', arguments: {} }] },
      { text: 'ok' },
    ]);
    const agent = agentFor(model, [server(demo.modernUrl)], new MemoryHistoryStore());
    await agent.execute({ threadId: 't', messages: 'book' }).result();
    const callsBefore = callsOf('book_table');
    const refused = await agent
      .execute({
        threadId: 't',
        resolutions: [{ callId: 'book', action: 'approve', content: { name: '' } }],
      })
      .result();
    expect(refused.status).toBe('paused');
    expect(refused.error?.code).toBe('invalid_resolution');
    expect(callsOf('book_table')).toBe(callsBefore);
    const done = await agent
      .execute({
        threadId: 't',
        resolutions: [{ callId: 'book', action: 'approve', content: bookingAnswer }],
      })
      .result();
    expect(outputOf(done, 'book')).toMatchObject({ output: { text: booked } });
  });

  it('MRTR URL mode becomes a url interrupt; accepting completes the call', async () => {
    const model = await scripted([
      { toolCalls: [{ id: 'link', name: 'connect_account', arguments: { service: 'calendar' } }] },
      { text: 'ok' },
    ]);
    const agent = agentFor(model, [server(demo.modernUrl)], new MemoryHistoryStore());
    const paused = await agent.execute({ threadId: 't', messages: 'connect' }).result();
    expect(paused.interrupts[0]).toMatchObject({
      mode: 'url',
      url: expect.stringContaining('/demo/authorize'),
    });
    const done = await agent
      .execute({ threadId: 't', resolutions: [{ callId: 'link', action: 'approve' }] })
      .result();
    expect(outputOf(done, 'link')).toMatchObject({
      output: { text: expect.stringContaining('Connected the calendar account') },
    });
  });

  it('pushed elicitation (2025 era): the call stays open while paused, and the answer goes to it', async () => {
    const model = await scripted([
      { toolCalls: [{ id: 'book', name: 'book_table', arguments: {} }] },
      { text: 'ok' },
    ]);
    // A short idle timeout proves that time spent with the human is not counted.
    const agent = agentFor(
      model,
      [server(demo.legacyUrl, { timeoutMs: 300 })],
      new MemoryHistoryStore(),
    );
    const before = callsOf('book_table');
    const paused = await agent.execute({ threadId: 't', messages: 'book' }).result();
    expect(paused.status).toBe('paused');
    expect(paused.interrupts[0]).toMatchObject({ mode: 'form', toolName: 'book_table' });
    expect(paused.interrupts[0]?.reissued).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 600));
    const done = await agent
      .execute({
        threadId: 't',
        resolutions: [{ callId: 'book', action: 'approve', content: bookingAnswer }],
      })
      .result();
    expect(done.status).toBe('completed');
    expect(outputOf(done, 'book')).toMatchObject({ output: { text: booked } });
    expect(callsOf('book_table') - before).toBe(1);
  });

  it('pushed elicitation after a reload re-issues the call and gives the server the stored answer', async () => {
    const model = await scripted([
      { toolCalls: [{ id: 'book', name: 'book_table', arguments: {} }] },
      { text: 'ok' },
    ]);
    const history = new MemoryHistoryStore();
    const firstServer = server(demo.legacyUrl);
    const first = agentFor(model, [firstServer], history);
    const before = callsOf('book_table');
    await first.execute({ threadId: 't', messages: 'book' }).result();
    await firstServer.close(); // the page went away with its connection

    const second = agentFor(model, [server(demo.legacyUrl)], history);
    const done = await second
      .execute({
        threadId: 't',
        resolutions: [{ callId: 'book', action: 'approve', content: bookingAnswer }],
      })
      .result();
    expect(done.status).toBe('completed');
    expect(outputOf(done, 'book')).toMatchObject({ output: { text: booked } });
    expect(callsOf('book_table') - before).toBe(2);
  });

  it('forwards progress as tool.progress chunks and keeps the call alive while progress comes', async () => {
    const model = await scripted([
      { toolCalls: [{ id: 'count', name: 'slow_count', arguments: { count: 4, delayMs: 150 } }] },
      { text: 'ok' },
    ]);
    const agent = agentFor(
      model,
      [server(demo.legacyUrl, { timeoutMs: 400 })],
      new MemoryHistoryStore(),
    );
    const handle = agent.execute({ messages: 'count' });
    const chunks: Chunk[] = [];
    for await (const chunk of handle.chunks) chunks.push(chunk);
    const progress = chunks.flatMap((chunk) => (chunk.type === 'tool.progress' ? [chunk] : []));
    expect(progress.map((chunk) => chunk.progress)).toEqual([1, 2, 3, 4]);
    expect(progress[0]).toMatchObject({ callId: 'count', toolName: 'slow_count', total: 4 });
    expect(outputOf(await handle.result(), 'count')).toMatchObject({
      output: { text: 'Counted to 4.' },
    });
  });

  it('times out a call that sends no progress, as an error output for the model', async () => {
    const model = await scripted([
      { toolCalls: [{ id: 'count', name: 'slow_count', arguments: { count: 1, delayMs: 2000 } }] },
      { text: 'ok' },
    ]);
    const agent = agentFor(
      model,
      [server(demo.legacyUrl, { timeoutMs: 300 })],
      new MemoryHistoryStore(),
    );
    const result = await agent.execute({ messages: 'count' }).result();
    expect(result.status).toBe('completed');
    expect(outputOf(result, 'count')).toMatchObject({
      output: { isError: true, error: { code: 'timeout' } },
    });
  });

  it('stopping the run cancels the call on the wire (notifications/cancelled)', async () => {
    const model = await scripted([
      { toolCalls: [{ id: 'count', name: 'slow_count', arguments: { count: 50, delayMs: 100 } }] },
      { text: 'never' },
    ]);
    const agent = agentFor(model, [server(demo.legacyUrl)], new MemoryHistoryStore());
    const handle = agent.execute({ messages: 'count' });
    for await (const chunk of handle.chunks) {
      if (chunk.type === 'tool.progress') break;
    }
    handle.stop();
    expect((await handle.result()).status).toBe('cancelled');
    await expect
      .poll(() => demo.log.some((entry) => entry.rpcMethod === 'notifications/cancelled'))
      .toBe(true);
  });
});

describe('URL elicitation required (-32042) against server-everything', () => {
  it('becomes a url interrupt, and a server asking for the same URL again stops the loop', async () => {
    const { startEverythingServer } = await import('@switchboard/fixtures');
    const everything = await startEverythingServer();
    opened.push(everything);
    const model = await scripted([
      {
        toolCalls: [
          {
            id: 'url',
            name: 'trigger-url-elicitation',
            arguments: {
              url: 'https://example.com/authorize',
              message: 'Sign in',
              errorPath: true,
            },
          },
        ],
      },
      { text: 'ok' },
    ]);
    const agent = agentFor(
      model,
      [server(everything.url, { name: 'everything' })],
      new MemoryHistoryStore(),
    );
    const paused = await agent.execute({ threadId: 't', messages: 'go' }).result();
    expect(paused.status).toBe('paused');
    expect(paused.interrupts[0]).toMatchObject({
      mode: 'url',
      url: expect.stringMatching(/^https:\/\//),
      server: 'everything',
    });
    // Each retry may ask for another URL; one already shown for this call ends the loop.
    let done = paused;
    const shown: string[] = [];
    for (let attempt = 0; attempt < 4 && done.status === 'paused'; attempt++) {
      shown.push(done.interrupts[0]?.url ?? '');
      done = await agent
        .execute({ threadId: 't', resolutions: [{ callId: 'url', action: 'approve' }] })
        .result();
    }
    expect(done.status).toBe('completed');
    expect(new Set(shown).size).toBe(shown.length);
    expect(outputOf(done, 'url')).toMatchObject({
      output: { text: expect.stringContaining('User completed the URL elicitation flow') },
    });
  });

  it('stops when a server keeps asking for the same URL (-32042 loop guard)', async () => {
    const looping = await startLoopingUrlServer();
    opened.push(looping);
    const model = await scripted([
      { toolCalls: [{ id: 'url', name: 'needs_login', arguments: {} }] },
      { text: 'ok' },
    ]);
    const agent = agentFor(
      model,
      [server(looping.url, { name: 'looping' })],
      new MemoryHistoryStore(),
    );
    const paused = await agent.execute({ threadId: 't', messages: 'go' }).result();
    expect(paused.interrupts[0]).toMatchObject({ mode: 'url', url: 'https://example.com/login' });
    const done = await agent
      .execute({ threadId: 't', resolutions: [{ callId: 'url', action: 'approve' }] })
      .result();
    expect(done.status).toBe('completed');
    expect(outputOf(done, 'url')).toMatchObject({
      output: {
        isError: true,
        error: { code: -32042 },
        text: expect.stringContaining('asked again'),
      },
    });
    expect(looping.calls()).toBe(2);
  });

  it('a pushed URL elicitation (2025 era) pauses as a url interrupt and accept completes it', async () => {
    const model = await scripted([
      { toolCalls: [{ id: 'link', name: 'connect_account', arguments: { service: 'mail' } }] },
      { text: 'ok' },
    ]);
    const agent = agentFor(model, [server(demo.legacyUrl)], new MemoryHistoryStore());
    const paused = await agent.execute({ threadId: 't', messages: 'connect' }).result();
    expect(paused.interrupts[0]).toMatchObject({ mode: 'url', elicitationId: expect.any(String) });
    const done = await agent
      .execute({ threadId: 't', resolutions: [{ callId: 'link', action: 'approve' }] })
      .result();
    expect(outputOf(done, 'link')).toMatchObject({
      output: { text: expect.stringContaining('Connected the mail account') },
    });
  });
});

describe('McpServer.callTool outside an agent (tool runner)', () => {
  it.each([
    ['MRTR (2026-07-28)', () => demo.modernUrl],
    ['pushed (2025 era)', () => demo.legacyUrl],
  ])('answers elicitation through onInput and fills schema defaults: %s', async (_era, url) => {
    const asked: string[] = [];
    const output = await server(url()).callTool(
      'book_table',
      {},
      {
        onInput: async (request) => {
          asked.push(request.mode);
          // partySize and seating are left out: their schema defaults (2, indoor) are sent.
          return { action: 'approve', content: { name: 'Ada', date: '2026-12-24', confirm: true } };
        },
      },
    );
    expect(asked).toEqual(['form']);
    expect(output.text).toBe(booked);
  });

  it('declines when no onInput is given', async () => {
    const output = await server(demo.modernUrl).callTool('book_table', {});
    expect(output.text).toBe('The user declined the booking; nothing was booked.');
  });
});
