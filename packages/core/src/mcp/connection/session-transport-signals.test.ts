import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/client';
import { startDemoServer, type DemoServer } from '@switchboard/fixtures';
import { createSessionFetch } from './session-fetch.ts';
import type { JsonRpcId } from './scan-server-requests.ts';
import { RequestSignals, SessionTransport } from './session-transport.ts';

/**
 * Attacks on the per-request signals of a `SessionTransport` (2026-07-28: the transport's own
 * `AbortController` per request, found by the session fetch through the request's JSON-RPC id):
 * many calls with random cancels, timeouts and failed POSTs, transport closes, string ids and
 * nested ids, `subscriptions/listen`, and 2025-era sessions. Real HTTP on 127.0.0.1: the demo
 * server behind a recording proxy.
 */

/** One request the proxy received. */
interface ProxiedRequest {
  method: string;
  path: string;
  rpcMethod: string | undefined;
  id: JsonRpcId | undefined;
  /** `params.requestId` of a `notifications/cancelled`. */
  cancelledId: JsonRpcId | undefined;
  /** The client closed the connection before the answer was complete. */
  closedEarly?: boolean;
}

let demo: DemoServer;
let proxy: Server;
let proxyUrl: URL;
let legacyProxyUrl: URL;
const proxied: ProxiedRequest[] = [];

beforeAll(async () => {
  demo = await startDemoServer({ toolCount: 0 });
  proxy = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const message = (body === '' ? {} : JSON.parse(body)) as {
        method?: string;
        id?: JsonRpcId;
        params?: { requestId?: JsonRpcId; arguments?: { city?: string } };
      };
      const path = (request.url ?? '/').split('?')[0]!;
      const entry: ProxiedRequest = {
        method: request.method ?? '',
        path,
        rpcMethod: message.method,
        id: message.id,
        cancelledId: message.params?.requestId,
      };
      proxied.push(entry);
      const upstream = new AbortController();
      response.on('close', () => {
        entry.closedEarly = !response.writableFinished;
        upstream.abort();
      });
      // A request the test holds: an SSE answer that never says a word.
      if (message.method === 'test/hold') {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.flushHeaders();
        return;
      }
      // A call the server no longer knows the session of.
      if (message.params?.arguments?.city === 'Gone') {
        response.writeHead(404, { 'content-type': 'text/plain' });
        response.end('Session not found');
        return;
      }
      const target = path.startsWith('/legacy/')
        ? new URL(demo.legacyUrl)
        : new URL(demo.modernUrl);
      const search = (request.url ?? '').includes('?')
        ? (request.url ?? '').slice((request.url ?? '').indexOf('?'))
        : '';
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) {
        if (typeof value === 'string' && name !== 'host' && name !== 'connection') {
          headers.set(name, value);
        }
      }
      fetch(`${target.href}${search}`, {
        method: request.method ?? 'GET',
        headers,
        ...(body === '' ? {} : { body }),
        signal: upstream.signal,
      }).then(
        (answer) => {
          response.writeHead(answer.status, Object.fromEntries(answer.headers));
          if (answer.body === null) response.end();
          else
            Readable.fromWeb(answer.body as never)
              .on('error', () => response.destroy())
              .pipe(response);
        },
        () => response.destroy(),
      );
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const port = (proxy.address() as AddressInfo).port;
  proxyUrl = new URL(`http://127.0.0.1:${port}/modern/mcp`);
  legacyProxyUrl = new URL(`http://127.0.0.1:${port}/legacy/mcp`);
});

afterAll(async () => {
  await new Promise((resolve) => proxy.close(resolve));
  await demo.close();
});

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  proxied.length = 0;
});

/** Request signals that also keep every signal the transport made itself, by request id. */
class RecordingSignals extends RequestSignals {
  readonly own = new Map<JsonRpcId, AbortSignal>();
  readonly given = new Map<JsonRpcId, AbortSignal>();

  override add(id: JsonRpcId, signal: AbortSignal, closesWithTransport = false): void {
    (closesWithTransport ? this.own : this.given).set(id, signal);
    super.add(id, signal, closesWithTransport);
  }
}

/** A client on `url` through a `SessionTransport`, wired as `McpSession` wires it. */
async function connect(url: URL = proxyUrl) {
  const signals = new RecordingSignals();
  const lost: unknown[] = [];
  const transport = new SessionTransport(
    url,
    {
      fetch: createSessionFetch({
        baseFetch: (input, init) => fetch(input, init),
        headers: {},
        blockStandaloneGet: true,
        requestSignals: signals,
      }),
    },
    { onAnswerLost: (id) => lost.push(id), requestSignals: signals },
  );
  const transportErrors: unknown[] = [];
  transport.onerror = (error) => transportErrors.push(error);
  const client = new Client(
    { name: 'session-transport-signals-test', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  const clientErrors: unknown[] = [];
  client.onerror = (error) => clientErrors.push(error);
  clients.push(client);
  await client.connect(transport);
  return { client, transport, signals, transportErrors, clientErrors, lost };
}

function until(check: () => boolean, timeout = 5_000): Promise<void> {
  return vi.waitFor(() => expect(check()).toBe(true), { timeout, interval: 10 });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A small seeded generator: the same plan on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Nothing is kept for any request id in `ids`. */
function expectNothingKept(signals: RequestSignals, ids: Iterable<JsonRpcId>): void {
  for (const id of ids) {
    expect(signals.get(id), `signal of request ${String(id)}`).toBeUndefined();
    expect(signals.closesWithTransport(id), `own mark of request ${String(id)}`).toBe(false);
  }
}

/** The ids of the `tools/call` POSTs the proxy received. */
function callIds(): JsonRpcId[] {
  return proxied.flatMap((entry) =>
    entry.rpcMethod === 'tools/call' && entry.id !== undefined ? [entry.id] : [],
  );
}

describe('SessionTransport own signals under load (2026-07-28)', () => {
  it('random answers, cancels, timeouts and failed POSTs: one outcome each, every stopped stream closed, nothing kept', async () => {
    const session = await connect();
    const { client, signals } = session;
    const next = random(20261203);
    type Kind = 'answer' | 'cancel' | 'timeout' | 'gone';
    const kinds: Kind[] = ['answer', 'cancel', 'timeout', 'gone'];
    const plans = Array.from({ length: 160 }, () => ({
      kind: kinds[Math.floor(next() * kinds.length)]!,
      after: Math.floor(next() * 200),
    }));
    const outcomes: { kind: Kind; settled: number; outcome?: 'answered' | 'rejected' }[] = [];
    let running = 0;
    const one = async (plan: (typeof plans)[number]): Promise<void> => {
      const record: (typeof outcomes)[number] = { kind: plan.kind, settled: 0 };
      outcomes.push(record);
      const controller = new AbortController();
      const slow = { name: 'slow_count', arguments: { count: 40, delayMs: 25 } };
      const call =
        plan.kind === 'answer'
          ? client.callTool({ name: 'get_weather', arguments: { city: 'Oslo' } })
          : plan.kind === 'gone'
            ? client.callTool({ name: 'get_weather', arguments: { city: 'Gone' } })
            : plan.kind === 'cancel'
              ? client.callTool(slow, { signal: controller.signal })
              : client.callTool(slow, { timeout: 50 + plan.after });
      if (plan.kind === 'cancel') {
        setTimeout(() => controller.abort(new Error('stopped by the test')), plan.after);
      }
      await call.then(
        (result) => {
          record.settled += 1;
          record.outcome = result.isError === true ? 'rejected' : 'answered';
        },
        () => {
          record.settled += 1;
          record.outcome = 'rejected';
        },
      );
    };
    // At most 40 calls at once.
    const queue = [...plans];
    await Promise.all(
      Array.from({ length: 40 }, async () => {
        for (let plan = queue.shift(); plan !== undefined; plan = queue.shift()) {
          running += 1;
          await one(plan);
          running -= 1;
        }
      }),
    );
    expect(running).toBe(0);
    expect(outcomes).toHaveLength(plans.length);
    for (const record of outcomes) {
      expect(record.settled).toBe(1);
      expect(record.outcome).toBe(record.kind === 'answer' ? 'answered' : 'rejected');
    }
    // Each stopped call's POST (if it left at all) is closed on the server side.
    const stoppedIds = new Set<JsonRpcId>();
    for (const entry of proxied) {
      if (entry.rpcMethod === 'tools/call' && entry.id !== undefined) {
        const { id } = entry;
        const signal = signals.own.get(id);
        if (signal?.aborted === true) stoppedIds.add(id);
      }
    }
    expect(stoppedIds.size).toBeGreaterThan(40);
    await until(() =>
      proxied.every((entry) => !stoppedIds.has(entry.id!) || entry.closedEarly === true),
    );
    await pause(300);
    expect(proxied.filter((entry) => entry.rpcMethod === 'notifications/cancelled')).toEqual([]);
    expect(proxied.filter((entry) => entry.method === 'GET')).toEqual([]);
    // The only errors reported are those of the POSTs answered 404, one each.
    const gone = plans.filter((plan) => plan.kind === 'gone').length;
    expect(gone).toBeGreaterThan(20);
    expect(session.transportErrors).toHaveLength(gone);
    expect(session.clientErrors).toHaveLength(gone);
    for (const error of [...session.transportErrors, ...session.clientErrors]) {
      expect(String(error)).toContain('Session not found');
    }
    expect(session.lost).toEqual([]);
    // Every modern call had a signal of the transport's own; nothing is kept for any of them.
    const ids = callIds();
    expect(ids.length).toBeGreaterThan(100);
    for (const id of ids) expect(signals.own.has(id)).toBe(true);
    expectNothingKept(signals, ids);
    // The transport keeps no controller for a settled request: closing it aborts none of the
    // signals of the requests answered or failed before.
    const notStopped = [...signals.own].filter(([, signal]) => !signal.aborted);
    expect(notStopped.length).toBeGreaterThan(40);
    await client.close();
    expect(notStopped.filter(([, signal]) => signal.aborted).map(([id]) => id)).toEqual([]);
  }, 60_000);

  it('closing the transport with many calls in flight: each rejects once, each stream closes, no cancel, nothing kept', async () => {
    const { client, signals } = await connect();
    const settled: string[] = [];
    const calls = Array.from({ length: 24 }, (_, index) =>
      client
        .callTool(
          { name: 'slow_count', arguments: { count: 50, delayMs: 50 } },
          index % 2 === 0 ? { onprogress: () => undefined } : {},
        )
        .then(
          () => settled.push('answered'),
          () => settled.push('rejected'),
        ),
    );
    await until(() => callIds().length === 24);
    await pause(100);
    await client.close();
    await Promise.race([
      Promise.all(calls),
      pause(5_000).then(() => {
        throw new Error('a call never settled');
      }),
    ]);
    expect(settled).toEqual(Array.from({ length: 24 }, () => 'rejected'));
    await until(() =>
      proxied
        .filter((entry) => entry.rpcMethod === 'tools/call')
        .every((entry) => entry.closedEarly === true),
    );
    await pause(200);
    expect(proxied.filter((entry) => entry.rpcMethod === 'notifications/cancelled')).toEqual([]);
    const ids = callIds();
    for (const id of ids) expect(signals.own.get(id)?.aborted).toBe(true);
    expectNothingKept(signals, ids);
  }, 20_000);

  it('a sweep after many cancels leaves nothing kept, and later calls still answer', async () => {
    const session = await connect();
    const { client, signals } = session;
    // More than the first sweep's 64 waiting requests, all cancelled mid-answer.
    for (let round = 0; round < 3; round += 1) {
      const controller = new AbortController();
      let started = 0;
      const calls = Array.from({ length: 30 }, () =>
        client
          .callTool(
            { name: 'slow_count', arguments: { count: 40, delayMs: 25 } },
            { signal: controller.signal, onprogress: () => (started += 1) },
          )
          .catch(() => 'rejected'),
      );
      await until(() => started >= 30);
      controller.abort(new Error('stopped by the test'));
      expect(await Promise.all(calls)).toEqual(Array.from({ length: 30 }, () => 'rejected'));
    }
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        client.callTool({ name: 'get_weather', arguments: { city: 'Oslo' } }),
      ),
    );
    expect(answers.every((answer) => answer.isError !== true)).toBe(true);
    await until(() =>
      proxied
        .filter((entry) => entry.rpcMethod === 'tools/call' && signals.own.get(entry.id!)?.aborted)
        .every((entry) => entry.closedEarly === true),
    );
    await pause(200);
    expect(proxied.filter((entry) => entry.rpcMethod === 'notifications/cancelled')).toEqual([]);
    expect(session.transportErrors).toEqual([]);
    expect(session.clientErrors).toEqual([]);
    expect(session.lost).toEqual([]);
    expectNothingKept(signals, callIds());
  }, 30_000);
});

describe('the server/discover probe (2026-07-28)', () => {
  it('leaves no controller behind once answered: closing the transport aborts no answered request', async () => {
    const { client, signals } = await connect();
    expect(client.getProtocolEra()).toBe('modern');
    const probes = proxied.flatMap((entry) =>
      entry.rpcMethod === 'server/discover' && entry.id !== undefined ? [entry.id] : [],
    );
    expect(probes).toHaveLength(1);
    expect(proxied.find((entry) => entry.rpcMethod === 'server/discover')?.closedEarly).toBe(false);
    const answered = await client.callTool({ name: 'get_weather', arguments: { city: 'Oslo' } });
    expect(answered.isError).not.toBe(true);
    const kept = [...signals.own].filter(([, signal]) => !signal.aborted);
    await client.close();
    // A signal still aborted by the close was still held by the transport.
    expect(kept.filter(([, signal]) => signal.aborted).map(([id]) => id)).toEqual([]);
    expectNothingKept(signals, [...probes, ...callIds()]);
  });
});

describe('the session fetch finds a request signal by its JSON-RPC id', () => {
  /** A session fetch on the proxy alone, with `signals`. */
  function sessionFetch(signals: RequestSignals) {
    return createSessionFetch({
      baseFetch: (input, init) => fetch(input, init),
      headers: {},
      blockStandaloneGet: true,
      requestSignals: signals,
    });
  }

  const post = (send: typeof fetch, body: string) =>
    send(proxyUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body,
    });

  it('string ids, a string id that looks like a number, and a nested last `,"id":` each close their own request only', async () => {
    const signals = new RequestSignals();
    const send = sessionFetch(signals);
    const controllers = {
      numeric: new AbortController(),
      text: new AbortController(),
      nested: new AbortController(),
      inner: new AbortController(),
    };
    signals.add(7, controllers.numeric.signal, true);
    signals.add('7', controllers.text.signal, true);
    signals.add(4, controllers.nested.signal, true);
    signals.add(9, controllers.inner.signal, true);
    const bodies = {
      numeric: '{"method":"test/hold","params":{"n":1},"jsonrpc":"2.0","id":7}',
      text: '{"method":"test/hold","params":{"n":2},"jsonrpc":"2.0","id":"7"}',
      // The last `,"id":` is nested: the request's id is 4, not 9.
      nested: '{"method":"test/hold","id":4,"params":{"n":3,"id":9}}',
    };
    const answers = Object.fromEntries(
      Object.entries(bodies).map(([name, body]) => [name, post(send, body)]),
    ) as Record<keyof typeof bodies, Promise<Response>>;
    const entryOf = (n: number) =>
      proxied.find((entry) => entry.rpcMethod === 'test/hold' && entry.id === [7, '7', 4][n - 1]);
    await until(() => [1, 2, 3].every((n) => entryOf(n) !== undefined));
    for (const answer of Object.values(answers)) expect((await answer).status).toBe(200);
    // The nested id names another request: its abort leaves request 4 open.
    controllers.inner.abort();
    controllers.text.abort();
    await until(() => entryOf(2)?.closedEarly === true);
    await pause(200);
    expect(entryOf(1)?.closedEarly).toBeUndefined();
    expect(entryOf(3)?.closedEarly).toBeUndefined();
    expect(signals.get('7')).toBeUndefined();
    expect(signals.get(7)).toBe(controllers.numeric.signal);
    controllers.nested.abort();
    await until(() => entryOf(3)?.closedEarly === true);
    await pause(100);
    expect(entryOf(1)?.closedEarly).toBeUndefined();
    controllers.numeric.abort();
    await until(() => entryOf(1)?.closedEarly === true);
    expect(signals.get(7)).toBeUndefined();
    expect(signals.get(4)).toBeUndefined();
  }, 15_000);

  it('a request whose signal aborted before its POST never leaves, and is forgotten', async () => {
    const signals = new RequestSignals();
    const send = sessionFetch(signals);
    const controller = new AbortController();
    signals.add('s-1', controller.signal, true);
    controller.abort();
    let settled = false;
    void post(send, '{"method":"test/hold","params":{},"jsonrpc":"2.0","id":"s-1"}').finally(
      () => (settled = true),
    );
    await pause(300);
    expect(settled).toBe(false);
    expect(proxied).toEqual([]);
    expect(signals.get('s-1')).toBeUndefined();
    expect(signals.closesWithTransport('s-1')).toBe(false);
  });
});

describe('subscriptions/listen keeps the SDK signal', () => {
  it('closing a listen stream closes its POST and still posts its notifications/cancelled', async () => {
    const session = await connect();
    const { client, signals } = session;
    const subscription = await client.listen({ toolsListChanged: true });
    const listen = () => proxied.find((entry) => entry.rpcMethod === 'subscriptions/listen');
    expect(listen()).toBeDefined();
    const listenId = listen()!.id!;
    expect(typeof listenId).toBe('string');
    // The SDK's signal: not one the transport made, so linked (it closes with the transport).
    expect(signals.given.has(listenId)).toBe(true);
    expect(signals.own.has(listenId)).toBe(false);
    // A call made meanwhile is not disturbed by the listen stream's close.
    const call = client.callTool(
      { name: 'slow_count', arguments: { count: 6, delayMs: 50 } },
      { onprogress: () => undefined },
    );
    await until(() => callIds().length === 1);
    await subscription.close();
    await until(() => listen()?.closedEarly === true);
    await until(() =>
      proxied.some(
        (entry) => entry.rpcMethod === 'notifications/cancelled' && entry.cancelledId === listenId,
      ),
    );
    expect((await call).isError).not.toBe(true);
    await pause(200);
    expect(signals.get(listenId)).toBeUndefined();
    expect(
      proxied.filter(
        (entry) => entry.rpcMethod === 'notifications/cancelled' && entry.cancelledId !== listenId,
      ),
    ).toEqual([]);
    expect(session.transportErrors).toEqual([]);
    expect(session.lost).toEqual([]);
  }, 15_000);

  it('closing the transport closes an open listen stream, with no error', async () => {
    const session = await connect();
    const { client, signals } = session;
    await client.listen({ toolsListChanged: true });
    const listen = () => proxied.find((entry) => entry.rpcMethod === 'subscriptions/listen');
    const listenId = listen()!.id!;
    await client.close();
    await until(() => listen()?.closedEarly === true);
    expect(signals.given.get(listenId)?.aborted).toBe(true);
  }, 15_000);
});

describe('2025-era sessions through a SessionTransport', () => {
  it('a cancelled call posts notifications/cancelled for its id, leaves the other calls alone, and keeps no signal', async () => {
    const session = await connect(legacyProxyUrl);
    const { client, signals } = session;
    expect(client.getProtocolEra()).not.toBe('modern');
    const controller = new AbortController();
    const started: number[] = [];
    const cancelled = client.callTool(
      { name: 'slow_count', arguments: { count: 40, delayMs: 50 } },
      { signal: controller.signal, onprogress: (update) => started.push(update.progress) },
    );
    const others = Array.from({ length: 3 }, () =>
      client.callTool(
        { name: 'slow_count', arguments: { count: 4, delayMs: 50 } },
        { onprogress: () => undefined },
      ),
    );
    await until(() => started.length > 0);
    controller.abort(new Error('stopped by the test'));
    await expect(cancelled).rejects.toThrow('stopped by the test');
    const cancelledPost = proxied.find(
      (entry) =>
        entry.rpcMethod === 'tools/call' &&
        entry.id !== undefined &&
        !proxied.some((other) => other !== entry && other.id === entry.id),
    );
    expect(cancelledPost).toBeDefined();
    await until(() => proxied.some((entry) => entry.rpcMethod === 'notifications/cancelled'));
    const notices = proxied.filter((entry) => entry.rpcMethod === 'notifications/cancelled');
    expect(notices).toHaveLength(1);
    // The notice names the cancelled call (the first tools/call sent).
    expect(notices[0]!.cancelledId).toBe(callIds()[0]);
    for (const other of await Promise.all(others)) expect(other.isError).not.toBe(true);
    // 2025 era: the transport made no signal of its own for any request (nor for the
    // `server/discover` probe, a 2026-07-28 request with a string id, which this server refused).
    const probes = proxied.flatMap((entry) =>
      entry.rpcMethod === 'server/discover' && entry.id !== undefined ? [entry.id] : [],
    );
    expect(probes).toHaveLength(1);
    expect([...signals.own.keys()]).toEqual([]);
    expectNothingKept(signals, [...probes, ...callIds()]);
    expect(session.lost).toEqual([]);
  }, 20_000);
});
