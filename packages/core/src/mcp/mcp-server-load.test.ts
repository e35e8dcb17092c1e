import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startLoadServer, type LoadServer } from '@switchboard/fixtures/load-server';
import {
  scriptFromReplies,
  startDemoServer,
  startScriptedModelServer,
  type DemoServer,
} from '@switchboard/fixtures';
import { Agent } from '../agent/agent.ts';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import { openaiChatModel } from '../openai/openai-chat-model.ts';
import { legacySseTransport } from '../legacy-sse/index.ts';
import { mcpServer, type McpServer } from './mcp-server.ts';

const opened: { close(): Promise<void> }[] = [];
/** Process warnings during a test (e.g. `MaxListenersExceededWarning`). */
let warnings: string[] = [];
const onWarning = (warning: Error): void => void warnings.push(warning.name);
beforeEach(() => {
  warnings = [];
  process.on('warning', onWarning);
});
afterEach(async () => {
  process.off('warning', onWarning);
  // Clients first (their DELETEs need the server), then servers.
  for (const thing of opened.splice(0).reverse()) await thing.close();
});

async function loadServer(): Promise<LoadServer> {
  const server = await startLoadServer({ workMs: 100 });
  opened.push(server);
  return server;
}

/** One `McpServer` for many users: each run context is a user with its own header set. */
function perUserServer(
  url: string,
  transport: 'sse' | 'streamable-http' = 'streamable-http',
): McpServer {
  const server = mcpServer({
    url,
    transport,
    legacySse: legacySseTransport,
    name: 'load',
    headers: (runContext) => ({ 'x-user': String(runContext) }),
    timeoutMs: 10_000,
  });
  opened.push(server);
  return server;
}

/**
 * `users` users call `record` at once, `rounds` times each; every call must be answered with
 * its own user's result, and the server must have run each call exactly once.
 */
async function callAtOnce(server: McpServer, load: LoadServer, users: number, rounds: number) {
  for (let round = 0; round < rounds; round++) {
    const calls = Array.from({ length: users }, (_, user) => {
      const id = `r${round}-u${user}`;
      return server
        .callTool('record', { id }, { runContext: `user-${user}` })
        .then((output) => ({ id, user, output }));
    });
    const settled = await Promise.allSettled(calls);
    const failures = settled.flatMap((outcome) =>
      outcome.status === 'rejected' ? [String((outcome.reason as Error).message)] : [],
    );
    expect(failures).toEqual([]);
    for (const outcome of settled) {
      if (outcome.status !== 'fulfilled') continue;
      const { id, user, output } = outcome.value;
      expect(output).toMatchObject({ text: `recorded ${id} for user number ${user}` });
      expect(output.isError).not.toBe(true);
    }
  }
  // Exactly once: one execution per answered call, and nothing else ran.
  expect(load.executions.size).toBe(users * rounds);
  expect([...load.executions.values()].every((count) => count === 1)).toBe(true);
  for (const [id, user] of load.userOf) expect(id.endsWith(`-u${user?.slice(5)}`)).toBe(true);
  // Many connects at once put no pile of listeners on one shared signal.
  await new Promise((resolve) => setTimeout(resolve, 0));
  expect(warnings).toEqual([]);
}

describe('many users on one MCP server (issue 13, load)', () => {
  it('64 users with distinct headers at once, twice (2025-era sessions): every call answered, each run once', async () => {
    const load = await loadServer();
    const server = perUserServer(load.legacyUrl);
    await callAtOnce(server, load, 64, 2);
    // No session was ended while in use; after the first round the 16 most recently used idle
    // sessions were kept (and reused), the other 48 ended, and opened again in the second round.
    expect(load.sessionsOpened()).toBe(64 + 48);
  });

  it('128 users with distinct headers at once (2025-era sessions)', async () => {
    const load = await loadServer();
    await callAtOnce(perUserServer(load.legacyUrl), load, 128, 1);
  });

  it('128 users with distinct headers at once (2026-07-28, stateless)', async () => {
    const load = await loadServer();
    await callAtOnce(perUserServer(load.modernUrl), load, 128, 1);
  });

  it('64 agent runs at once, each with the headers of its own user from its run context', async () => {
    const load = await loadServer();
    const server = perUserServer(load.legacyUrl);
    const model = await startScriptedModelServer({
      script: (request) => {
        const last = request.messages.at(-1);
        if (last?.role === 'tool') return { text: 'done' };
        const id = JSON.stringify(last?.content ?? '').match(/run-\d+/)?.[0] ?? 'none';
        return { toolCalls: [{ id: `call-${id}`, name: 'record', arguments: { id } }] };
      },
    });
    opened.push(model);
    const agent = new Agent({
      name: 'load',
      model: openaiChatModel({ baseURL: `${model.url}/v1`, model: 'scripted', maxRetries: 0 }),
      mcpServers: [server],
      history: new MemoryHistoryStore(),
    });
    const results = await Promise.all(
      Array.from({ length: 64 }, (_, index) =>
        agent
          .execute({
            threadId: `t${index}`,
            messages: `record run-${index}`,
            runContext: `user-${index}`,
          })
          .result(),
      ),
    );
    results.forEach((result, index) => {
      expect(result.status).toBe('completed');
      const output = result.output.find((item) => item.type === 'function_call_output');
      expect(output).toMatchObject({
        output: { text: `recorded run-${index} for user number ${index}` },
      });
    });
    expect(load.executions.size).toBe(64);
    expect([...load.executions.values()].every((count) => count === 1)).toBe(true);
  });

  it('64 users with distinct headers at once (legacy HTTP+SSE)', async () => {
    const load = await loadServer();
    await callAtOnce(perUserServer(load.legacySseUrl, 'sse'), load, 64, 1);
  });

  it('64 calls at once with the same headers (legacy HTTP+SSE: one session per call in flight)', async () => {
    const load = await loadServer();
    const server = mcpServer({
      url: load.legacySseUrl,
      transport: 'sse',
      legacySse: legacySseTransport,
      name: 'load',
    });
    opened.push(server);
    const outputs = await Promise.all(
      Array.from({ length: 64 }, (_, index) => server.callTool('record', { id: `c${index}` })),
    );
    expect(outputs.map((output) => output.text)).toEqual(
      Array.from({ length: 64 }, (_, index) => `recorded c${index} for nobody`),
    );
    expect([...load.executions.values()]).toEqual(Array.from({ length: 64 }, () => 1));
    expect(load.sseStreamsOpened()).toBe(64);
  });
});

describe('one shared first tools/list for many runs (issue 13, load)', () => {
  async function slowListingServer(): Promise<{ demo: DemoServer; server: McpServer }> {
    const demo = await startDemoServer({ toolCount: 3 });
    opened.push(demo);
    const server = mcpServer({ url: demo.legacyUrl, name: 'demo', timeoutMs: 10_000 });
    opened.push(server);
    await server.connect();
    // Every request from now on takes a while: the first listing is in flight long enough.
    demo.faults.delayMs = 300;
    return { demo, server };
  }

  const listings = (demo: DemoServer) =>
    demo.log.filter((entry) => entry.rpcMethod === 'tools/list').length;

  async function listingReceived(demo: DemoServer, count: number): Promise<void> {
    const deadline = Date.now() + 5000;
    while (listings(demo) < count) {
      if (Date.now() > deadline) throw new Error('The listing never reached the server.');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  it('stopping one caller during the shared listing fails only that caller; the others get the tools', async () => {
    const { demo, server } = await slowListingServer();
    const stopped = new AbortController();
    const first = server.listTools({ signal: stopped.signal });
    const second = server.listTools({ signal: new AbortController().signal });
    const third = server.listTools();
    await listingReceived(demo, 1);
    stopped.abort();

    await expect(first).rejects.toMatchObject({ code: 'aborted' });
    expect(await second).toHaveLength(11 + 3);
    expect(await third).toHaveLength(11 + 3);
    expect(listings(demo)).toBe(1); // one listing, not cancelled, not restarted
    expect(server.getSnapshot().status).toBe('connected');
  });

  it('stopping one agent run during the shared first listing does not fail the other runs', async () => {
    const { demo, server } = await slowListingServer();
    const model = await startScriptedModelServer({
      script: scriptFromReplies([{ text: 'Done.' }]),
    });
    opened.push(model);
    const agent = new Agent({
      name: 'load',
      model: openaiChatModel({ baseURL: `${model.url}/v1`, model: 'scripted', maxRetries: 0 }),
      mcpServers: [server],
      history: new MemoryHistoryStore(),
    });
    const runs = ['a', 'b', 'c'].map((thread) =>
      agent.execute({ threadId: thread, messages: 'hello' }),
    );
    await listingReceived(demo, 1);
    runs[0]?.stop();

    const [a, b, c] = await Promise.all(runs.map((run) => run.result()));
    expect(a?.status).toBe('cancelled');
    expect(b?.status).toBe('completed');
    expect(c?.status).toBe('completed');
    expect(listings(demo)).toBe(1);
  });

  it('when every caller stops, the listing is abandoned and the next caller lists afresh', async () => {
    const { demo, server } = await slowListingServer();
    const one = new AbortController();
    const two = new AbortController();
    const first = server.listTools({ signal: one.signal });
    const second = server.listTools({ signal: two.signal });
    await listingReceived(demo, 1);
    one.abort();
    two.abort();
    await expect(first).rejects.toMatchObject({ code: 'aborted' });
    await expect(second).rejects.toMatchObject({ code: 'aborted' });

    expect(await server.listTools()).toHaveLength(11 + 3);
    expect(listings(demo)).toBe(2);
  });
});

describe('pushed questions over legacy HTTP+SSE reach the call that asked (issue 13, load)', () => {
  const restaurants = ["Luigi's", "Marco's", "Nonna's", "Zia's"];
  const diners = ['Ada', 'Bob', 'Cy', 'Di'];
  const booked = (restaurant: string, diner: string) =>
    `Booked a table at ${restaurant} for 2 guests on 2026-12-24 (indoor) under ${diner}.`;

  /** Rejects when `promise` takes longer than `milliseconds` (a misrouted question hangs). */
  function within<T>(promise: Promise<T>, milliseconds: number): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error(`Still waiting after ${milliseconds} ms.`)),
        milliseconds,
      );
    });
    return Promise.race([promise, late]).finally(() => clearTimeout(timer));
  }

  async function demoServer(): Promise<DemoServer> {
    const demo = await startDemoServer({ toolCount: 1 });
    opened.push(demo);
    return demo;
  }

  /** Four `book_table` calls at once, each answering its own question with its own diner. */
  async function bookAtOnce(server: McpServer, runContext?: (index: number) => string) {
    const asked: string[][] = restaurants.map(() => []);
    const outputs = await within(
      Promise.all(
        restaurants.map((restaurant, index) =>
          server.callTool(
            'book_table',
            { restaurant },
            {
              ...(runContext === undefined ? {} : { runContext: runContext(index) }),
              onInput: async (request) => {
                asked[index]?.push(request.message ?? '');
                // Answer after the others have been asked: every question is pending at once.
                await new Promise((resolve) => setTimeout(resolve, 100 + 20 * index));
                const name = diners[index] ?? '';
                return { action: 'approve', content: { name, date: '2026-12-24', confirm: true } };
              },
            },
          ),
        ),
      ),
      5000,
    );
    restaurants.forEach((restaurant, index) => {
      expect(asked[index]).toEqual([expect.stringContaining(restaurant)]);
      expect(outputs[index]?.text).toBe(booked(restaurant, diners[index] ?? ''));
    });
  }

  const initializes = (demo: DemoServer) =>
    demo.log.filter((entry) => entry.rpcMethod === 'initialize').length;

  it('four direct calls at once on one server (same headers): each question goes to its own call', async () => {
    const demo = await demoServer();
    const server = mcpServer({
      url: demo.legacySseUrl,
      transport: 'sse',
      legacySse: legacySseTransport,
      name: 'demo',
    });
    opened.push(server);
    await bookAtOnce(server);
    // Legacy SSE: one session per call in flight (its one stream then carries only its questions).
    expect(initializes(demo)).toBe(4);
  });

  it('Streamable HTTP (2025 era): four calls share one session, and four users their own sessions', async () => {
    const demo = await demoServer();
    const shared = mcpServer({ url: demo.legacyUrl, name: 'demo' });
    opened.push(shared);
    await bookAtOnce(shared);
    expect(initializes(demo)).toBe(1);
    // Server request ids are numbered per session: each user's first question has the same id.
    const perUser = mcpServer({
      url: demo.legacyUrl,
      name: 'demo',
      headers: (runContext) => ({ 'x-user': String(runContext) }),
    });
    opened.push(perUser);
    await bookAtOnce(perUser, (index) => `user-${index}`);
    expect(initializes(demo)).toBe(1 + 4);
  });

  it('two agent threads paused on pushed questions at once: each answer reaches its own call', async () => {
    const demo = await demoServer();
    const server = mcpServer({
      url: demo.legacySseUrl,
      transport: 'sse',
      legacySse: legacySseTransport,
      name: 'demo',
    });
    opened.push(server);
    const model = await startScriptedModelServer({
      script: (request) => {
        const last = request.messages.at(-1);
        if (last?.role === 'tool') return { text: 'ok' };
        const restaurant = restaurants.find((name) =>
          JSON.stringify(last?.content ?? '').includes(name.slice(0, 4)),
        );
        return {
          toolCalls: [{ id: `book-${restaurant}`, name: 'book_table', arguments: { restaurant } }],
        };
      },
    });
    opened.push(model);
    const agent = new Agent({
      name: 'sse-threads',
      model: openaiChatModel({ baseURL: `${model.url}/v1`, model: 'scripted', maxRetries: 0 }),
      mcpServers: [server],
      history: new MemoryHistoryStore(),
    });
    const threads = restaurants.slice(0, 2);
    const paused = await within(
      Promise.all(
        threads.map((restaurant, index) =>
          agent.execute({ threadId: `t${index}`, messages: `book at ${restaurant}` }).result(),
        ),
      ),
      5000,
    );
    threads.forEach((restaurant, index) => {
      expect(paused[index]?.status).toBe('paused');
      expect(paused[index]?.interrupts[0]?.message).toContain(restaurant);
    });
    const done = await within(
      Promise.all(
        threads.map((restaurant, index) =>
          agent
            .execute({
              threadId: `t${index}`,
              resolutions: [
                {
                  callId: `book-${restaurant}`,
                  action: 'approve',
                  content: { name: diners[index], date: '2026-12-24', confirm: true },
                },
              ],
            })
            .result(),
        ),
      ),
      5000,
    );
    threads.forEach((restaurant, index) => {
      expect(done[index]?.status).toBe('completed');
      const output = done[index]?.output.find((item) => item.type === 'function_call_output');
      expect(output).toMatchObject({ output: { text: booked(restaurant, diners[index] ?? '') } });
    });
  });
});
