import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client, type StreamableHTTPClientTransportOptions } from '@modelcontextprotocol/client';
import { startDemoServer, type DemoServer } from '@switchboard/fixtures';
import { createSessionFetch } from './session-fetch.ts';
import { RequestSignals, SessionTransport } from './session-transport.ts';

/**
 * A 2026-07-28 request cancelled or timed out through a `SessionTransport` closes its HTTP
 * request (the server sees the connection close) exactly as the SDK's own transport does, and
 * like it reports no transport error and opens no resumption GET — without `AbortSignal.any`.
 * Real HTTP: the demo server's modern endpoint behind a recording proxy on 127.0.0.1.
 */

/** One request the proxy forwarded. */
interface ProxiedRequest {
  method: string;
  rpcMethod: string | undefined;
  /** The client closed the connection before the answer was complete. */
  closedEarly?: boolean;
}

let demo: DemoServer;
let proxy: Server;
let proxyUrl: URL;
const proxied: ProxiedRequest[] = [];
/** Set: the proxy answers `tools/call` itself with JSON headers and half a body, then holds. */
let holdJsonAnswer = false;
/**
 * Set: the proxy acts as a server with an event store that closes each SSE answer after its
 * first event, numbered (`id:`), and holds every resuming GET (`Last-Event-ID`) open, silent.
 */
let endAfterFirstEvent = false;
/**
 * Set: the proxy numbers the first SSE event of every `tools/call` answer `1` — one id reused
 * across requests, as a server with a counter per stream does — and ends the answer there for a
 * `slow_count` of 3 (forwarding the others whole); every resuming GET is held open, silent.
 */
let reuseEventIds = false;

beforeAll(async () => {
  demo = await startDemoServer({ toolCount: 0 });
  const target = new URL(demo.modernUrl);
  proxy = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const entry: ProxiedRequest = {
        method: request.method ?? '',
        rpcMethod: body === '' ? undefined : (JSON.parse(body) as { method?: string }).method,
      };
      proxied.push(entry);
      const upstream = new AbortController();
      response.on('close', () => {
        entry.closedEarly = !response.writableFinished;
        upstream.abort();
      });
      if (holdJsonAnswer && entry.rpcMethod === 'tools/call') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('{"jsonrpc":"2.0",');
        return;
      }
      if ((endAfterFirstEvent || reuseEventIds) && request.headers['last-event-id'] !== undefined) {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.flushHeaders();
        return;
      }
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) {
        if (typeof value === 'string' && name !== 'host' && name !== 'connection') {
          headers.set(name, value);
        }
      }
      fetch(target, {
        method: request.method ?? 'GET',
        headers,
        ...(body === '' ? {} : { body }),
        signal: upstream.signal,
      }).then(
        (answer) => {
          response.writeHead(answer.status, Object.fromEntries(answer.headers));
          if (answer.body === null) response.end();
          else if (endAfterFirstEvent && entry.rpcMethod === 'tools/call') {
            void forwardFirstEvent(answer.body, response);
          } else if (reuseEventIds && entry.rpcMethod === 'tools/call') {
            void numberFirstEvent(answer.body, response, body.includes('"count":3'));
          } else
            Readable.fromWeb(answer.body as never)
              .on('error', () => response.destroy())
              .pipe(response);
        },
        () => response.destroy(),
      );
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = new URL(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}/`);
});

/** Writes the first SSE event of `body` to `response` as event `ev-1`, then ends both. */
async function forwardFirstEvent(body: ReadableStream<Uint8Array>, response: ServerResponse) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes('\n\n')) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
  response.end(`id: ev-1\n${text.slice(0, text.indexOf('\n\n') + 2)}`);
}

/**
 * Writes the first SSE event of `body` to `response` as event `1`; then ends both when `end`,
 * else forwards the rest as it comes.
 */
async function numberFirstEvent(
  body: ReadableStream<Uint8Array>,
  response: ServerResponse,
  end: boolean,
) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes('\n\n')) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  if (end) {
    await reader.cancel();
    response.end(`id: 1\n${text.slice(0, text.indexOf('\n\n') + 2)}`);
    return;
  }
  response.write(`id: 1\n${text}`);
  response.on('close', () => void reader.cancel().catch(() => undefined));
  for (;;) {
    const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
    if (done) break;
    response.write(value);
  }
  response.end();
}

afterAll(async () => {
  await new Promise((resolve) => proxy.close(resolve));
  await demo.close();
});

const clients: Client[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(clients.splice(0).map((client) => client.close()));
  proxied.length = 0;
  holdJsonAnswer = false;
  endAfterFirstEvent = false;
  reuseEventIds = false;
});

/** A client on the proxy through a `SessionTransport`, wired as `McpSession` wires it. */
async function connect(
  reconnectionOptions?: StreamableHTTPClientTransportOptions['reconnectionOptions'],
) {
  const signals = new RequestSignals();
  const lost: unknown[] = [];
  const transport = new SessionTransport(
    proxyUrl,
    {
      fetch: createSessionFetch({
        baseFetch: (input, init) => fetch(input, init),
        headers: {},
        blockStandaloneGet: false,
        requestSignals: signals,
      }),
      ...(reconnectionOptions === undefined ? {} : { reconnectionOptions }),
    },
    { onAnswerLost: (id) => lost.push(id), requestSignals: signals },
  );
  const transportErrors: unknown[] = [];
  transport.onerror = (error) => transportErrors.push(error);
  const client = new Client(
    { name: 'session-transport-test', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  const clientErrors: unknown[] = [];
  client.onerror = (error) => clientErrors.push(error);
  clients.push(client);
  await client.connect(transport);
  return {
    client,
    signals,
    errors: [...transportErrors, ...clientErrors],
    transportErrors,
    clientErrors,
    lost,
  };
}

/** Reconnection options: a cut answer is resumed after `delayMs`, at most `maxRetries` times. */
function resumeAfter(
  delayMs: number,
  maxRetries: number,
): StreamableHTTPClientTransportOptions['reconnectionOptions'] {
  return {
    initialReconnectionDelay: delayMs,
    maxReconnectionDelay: delayMs,
    reconnectionDelayGrowFactor: 1,
    maxRetries,
  };
}

function until(check: () => boolean): Promise<void> {
  return vi.waitFor(() => expect(check()).toBe(true), { timeout: 5_000, interval: 10 });
}

const quiet = () => new Promise((resolve) => setTimeout(resolve, 300));

/**
 * Nothing was reported — no transport or client error, no lost answer — and the session still
 * answers a call.
 */
async function expectSessionUnharmed(
  session: Pick<
    Awaited<ReturnType<typeof connect>>,
    'client' | 'transportErrors' | 'clientErrors' | 'lost'
  >,
): Promise<void> {
  expect(session.transportErrors).toEqual([]);
  expect(session.clientErrors).toEqual([]);
  expect(session.lost).toEqual([]);
  const next = await session.client.callTool({ name: 'get_weather', arguments: { city: 'Oslo' } });
  expect(next.isError).not.toBe(true);
}

describe('SessionTransport (2026-07-28 per-request streams)', () => {
  it('answers calls without ever combining signals with AbortSignal.any', async () => {
    // The demo server runs in this process and combines signals of its own: only the client's
    // calls (made from the SDK's client package) count.
    const original = AbortSignal.any.bind(AbortSignal);
    const callers: string[] = [];
    vi.spyOn(AbortSignal, 'any').mockImplementation((signals) => {
      callers.push(new Error('caller').stack ?? '');
      return original(signals);
    });
    const { client } = await connect();
    for (let call = 0; call < 3; call += 1) {
      const result = await client.callTool({ name: 'get_weather', arguments: { city: 'Oslo' } });
      expect(result.isError).not.toBe(true);
    }
    const progress: number[] = [];
    await client.callTool(
      { name: 'slow_count', arguments: { count: 2, delayMs: 5 } },
      { onprogress: (update) => progress.push(update.progress) },
    );
    expect(progress).toEqual([1, 2]);
    expect(callers.length).toBeGreaterThan(0); // the spy is live: the server's calls
    expect(callers.filter((stack) => stack.includes('@modelcontextprotocol/client'))).toEqual([]);
  });

  it.each([
    ['cancelled', { abortAtProgress: 2 }],
    ['timed out', { timeout: 300 }],
  ] as const)(
    'a call %s mid-stream closes its stream on the server, with no error and no GET',
    async (_how, plan) => {
      const { client, signals, transportErrors, clientErrors, lost } = await connect();
      const controller = new AbortController();
      const call = client.callTool(
        { name: 'slow_count', arguments: { count: 50, delayMs: 50 } },
        {
          signal: controller.signal,
          ...('timeout' in plan ? { timeout: plan.timeout } : {}),
          onprogress: (update) => {
            if ('abortAtProgress' in plan && update.progress === plan.abortAtProgress) {
              controller.abort(new Error('stopped by the test'));
            }
          },
        },
      );
      await expect(call).rejects.toThrow();
      const post = () => proxied.find((entry) => entry.rpcMethod === 'tools/call');
      await until(() => post()?.closedEarly === true);
      await quiet();
      expect(proxied.filter((entry) => entry.method === 'GET')).toEqual([]);
      expect(proxied.filter((entry) => entry.rpcMethod === 'notifications/cancelled')).toEqual([]);
      // Nothing kept for the abandoned request.
      for (let id = 0; id <= 10; id += 1) expect(signals.get(id)).toBeUndefined();
      await expectSessionUnharmed({ client, transportErrors, clientErrors, lost });
    },
  );

  it('a call cancelled before its answer started closes the request, with no error', async () => {
    const { client, transportErrors, clientErrors, lost } = await connect();
    const controller = new AbortController();
    // No progress token: the modern endpoint answers with JSON once the tool is done.
    const call = client.callTool(
      { name: 'slow_count', arguments: { count: 5, delayMs: 100 } },
      { signal: controller.signal },
    );
    await until(() => proxied.some((entry) => entry.rpcMethod === 'tools/call'));
    controller.abort(new Error('stopped by the test'));
    await expect(call).rejects.toThrow();
    await until(
      () => proxied.find((entry) => entry.rpcMethod === 'tools/call')?.closedEarly === true,
    );
    await quiet();
    expect(proxied.filter((entry) => entry.method === 'GET')).toEqual([]);
    await expectSessionUnharmed({ client, transportErrors, clientErrors, lost });
  });

  it('closing the transport closes the stream of a call in flight, and sends no cancel', async () => {
    const { client } = await connect();
    const call = client.callTool(
      { name: 'slow_count', arguments: { count: 50, delayMs: 50 } },
      { onprogress: () => undefined },
    );
    const settled = call.then(
      () => 'answered',
      () => 'rejected',
    );
    await until(() => proxied.some((entry) => entry.rpcMethod === 'tools/call'));
    await client.close();
    expect(await settled).toBe('rejected');
    await until(
      () => proxied.find((entry) => entry.rpcMethod === 'tools/call')?.closedEarly === true,
    );
    await quiet();
    expect(proxied.filter((entry) => entry.rpcMethod === 'notifications/cancelled')).toEqual([]);
  });

  it('a call cancelled while its JSON answer arrives closes the request, with no error', async () => {
    const { client, signals, transportErrors, clientErrors, lost } = await connect();
    holdJsonAnswer = true;
    const controller = new AbortController();
    const call = client.callTool(
      { name: 'get_weather', arguments: { city: 'Oslo' } },
      { signal: controller.signal },
    );
    await until(() => proxied.some((entry) => entry.rpcMethod === 'tools/call'));
    // The answer's headers and first bytes reach the client: the SDK is reading its body.
    await quiet();
    controller.abort(new Error('stopped by the test'));
    await expect(call).rejects.toThrow('stopped by the test');
    await until(
      () => proxied.find((entry) => entry.rpcMethod === 'tools/call')?.closedEarly === true,
    );
    await quiet();
    expect(proxied.filter((entry) => entry.method === 'GET')).toEqual([]);
    for (let id = 0; id <= 10; id += 1) expect(signals.get(id)).toBeUndefined();
    holdJsonAnswer = false;
    await expectSessionUnharmed({ client, transportErrors, clientErrors, lost });
  });

  it('a call cancelled while its answer is being resumed closes the resuming GET, with no error', async () => {
    const { client, signals, transportErrors, clientErrors, lost } = await connect(
      resumeAfter(20, 2),
    );
    endAfterFirstEvent = true;
    const controller = new AbortController();
    const call = client.callTool(
      { name: 'slow_count', arguments: { count: 50, delayMs: 50 } },
      { signal: controller.signal, onprogress: () => undefined },
    );
    const resuming = () => proxied.find((entry) => entry.method === 'GET');
    await until(() => resuming() !== undefined);
    controller.abort(new Error('stopped by the test'));
    await expect(call).rejects.toThrow('stopped by the test');
    await until(() => resuming()?.closedEarly === true);
    await quiet();
    expect(proxied.filter((entry) => entry.method === 'GET')).toHaveLength(1);
    expect(signals.forEvent('ev-1')).toBeUndefined();
    endAfterFirstEvent = false;
    await expectSessionUnharmed({ client, transportErrors, clientErrors, lost });
  });

  it("a cancel never closes another request's resuming GET when a server reuses event ids", async () => {
    const { client, signals, transportErrors, clientErrors, lost } = await connect(
      resumeAfter(400, 1),
    );
    reuseEventIds = true;
    // The first call's answer ends after its event `1`: it is resumed 400 ms later.
    const resumed = new AbortController();
    const first = client.callTool(
      { name: 'slow_count', arguments: { count: 3, delayMs: 20 } },
      { signal: resumed.signal, onprogress: () => undefined },
    );
    void first.catch(() => undefined);
    await until(
      () => proxied.find((entry) => entry.rpcMethod === 'tools/call')?.closedEarly === false,
    );
    // The second call's answer carries an event `1` too, and goes on.
    const cancelled = new AbortController();
    let counted = 0;
    const second = client.callTool(
      { name: 'slow_count', arguments: { count: 50, delayMs: 50 } },
      { signal: cancelled.signal, onprogress: () => (counted += 1) },
    );
    await until(() => counted > 0);
    const resuming = () => proxied.find((entry) => entry.method === 'GET');
    await until(() => resuming() !== undefined);
    cancelled.abort(new Error('stopped by the test'));
    await expect(second).rejects.toThrow('stopped by the test');
    const post = () => proxied.filter((entry) => entry.rpcMethod === 'tools/call')[1];
    await until(() => post()?.closedEarly === true);
    await quiet();
    // The first call's resumption is its own: the other's cancel leaves it open.
    expect(resuming()?.closedEarly).toBeUndefined();
    expect(transportErrors).toEqual([]);
    expect(clientErrors).toEqual([]);
    expect(lost).toEqual([]);
    // Its own cancel settles it (the GET, which could be either request's, is left to the server
    // and the session's close); the reused id names neither request.
    resumed.abort(new Error('stopped by the test'));
    await expect(first).rejects.toThrow('stopped by the test');
    await quiet();
    expect(signals.forEvent('1')).toBeUndefined();
  });
});

describe('SessionTransport (a resumption after the cancel, with many requests)', () => {
  it('a resumption due after its cancel never leaves, even once the waiting requests were swept', async () => {
    const { client, transportErrors, clientErrors } = await connect(resumeAfter(2_500, 1));
    endAfterFirstEvent = true;
    const controller = new AbortController();
    const call = client.callTool(
      { name: 'slow_count', arguments: { count: 50, delayMs: 50 } },
      { signal: controller.signal, onprogress: () => undefined },
    );
    void call.catch(() => undefined);
    // Its answer ended after event `ev-1`: the SDK resumes it in 2.5 s. It is cancelled first.
    await until(
      () => proxied.find((entry) => entry.rpcMethod === 'tools/call')?.closedEarly === false,
    );
    controller.abort(new Error('stopped by the test'));
    await expect(call).rejects.toThrow('stopped by the test');
    // Enough requests in flight at once for the transport to forget the cancelled one.
    await Promise.all(Array.from({ length: 80 }, () => client.listTools()));
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(proxied.filter((entry) => entry.method === 'GET')).toEqual([]);
    expect(transportErrors).toEqual([]);
    expect(clientErrors).toEqual([]);
  }, 15_000);
});
