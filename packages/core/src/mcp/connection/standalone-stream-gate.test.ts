import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSessionFetch } from './session-fetch.ts';
import { lockManagerDouble } from '../../internal/web-locks-test-support.ts';
import { TabStreamLead } from './tab-stream-lead.ts';

const URL_ = 'http://127.0.0.1:9/mcp';

/** A network double: every GET gets an event stream the test writes to; POSTs answer JSON. */
function networkDouble(getStatus = 200) {
  const gets: { headers: Headers; push(text: string): void; aborted(): boolean }[] = [];
  const network: typeof fetch = async (_input, init) => {
    const method = init?.method ?? 'GET';
    if (method !== 'GET') {
      return new Response('{"jsonrpc":"2.0","id":1,"result":{}}', {
        headers: { 'content-type': 'application/json' },
      });
    }
    if (getStatus !== 200) return new Response(null, { status: getStatus });
    const encoder = new TextEncoder();
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c;
      },
    });
    const signal = init?.signal;
    signal?.addEventListener('abort', () => controller.error(signal.reason));
    gets.push({
      headers: new Headers(init?.headers),
      push: (text) => controller.enqueue(encoder.encode(text)),
      aborted: () => signal?.aborted === true,
    });
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  };
  return { network, gets };
}

/** Two leads on one lock: `leader` holds it, `follower` waits. */
async function leads() {
  const locks = lockManagerDouble();
  const leader = new TabStreamLead('streams', locks);
  const follower = new TabStreamLead('streams', locks);
  await vi.advanceTimersByTimeAsync(0);
  return { leader, follower };
}

function sessionFetch(network: typeof fetch, tabLead: TabStreamLead): typeof fetch {
  return createSessionFetch({
    baseFetch: network,
    headers: { 'x-app': 'bench' },
    blockStandaloneGet: false,
    tabLead,
  });
}

const rpc = (id: number, method: string, params: Record<string, unknown> = {}) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
});

async function readText(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const { value } = await reader.read();
  return new TextDecoder().decode(value);
}

describe('the standalone GET stream shared across tabs (StandaloneStreamGate)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('in a tab that does not lead, answers the GET locally and opens it only while a request is in flight', async () => {
    const { leader, follower } = await leads();
    const { network, gets } = networkDouble();
    const fetcher = sessionFetch(network, follower);
    const transport = new AbortController();

    const stream = await fetcher(URL_, { method: 'GET', signal: transport.signal });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    expect(gets).toHaveLength(0);

    // A call in flight: the server may push its elicitation on the GET stream.
    const answer = await fetcher(URL_, rpc(1, 'tools/call', { name: 'book' }));
    expect(gets).toHaveLength(1);
    expect(gets[0]?.headers.get('x-app')).toBe('bench');
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    gets[0]?.push('id: 7\nevent: message\ndata: {"jsonrpc":"2.0","id":0,');
    gets[0]?.push('"method":"elicitation/create"}\n\n');
    // Passed on whole, without its id (the gate resumes, not the SDK).
    expect(await readText(reader)).toBe(
      'event: message\ndata: {"jsonrpc":"2.0","id":0,"method":"elicitation/create"}\n\n',
    );

    await answer.text(); // the call's answer was read: nothing in flight any more
    await vi.advanceTimersByTimeAsync(1_000);
    expect(gets[0]?.aborted()).toBe(true);

    // The next request opens it again, resuming after the last event seen.
    await (await fetcher(URL_, rpc(2, 'tools/list'))).text();
    expect(gets).toHaveLength(2);
    expect(gets[1]?.headers.get('last-event-id')).toBe('7');

    transport.abort();
    expect(gets[1]?.aborted()).toBe(true);
    leader.close();
    follower.close();
  });

  it('keeps the stream open while the session has resource subscriptions', async () => {
    const { leader, follower } = await leads();
    const { network, gets } = networkDouble();
    const fetcher = sessionFetch(network, follower);
    const transport = new AbortController();
    await fetcher(URL_, { method: 'GET', signal: transport.signal });

    await (await fetcher(URL_, rpc(1, 'resources/subscribe', { uri: 'demo://counter' }))).text();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(gets).toHaveLength(1);
    expect(gets[0]?.aborted()).toBe(false);

    await (await fetcher(URL_, rpc(2, 'resources/unsubscribe', { uri: 'demo://counter' }))).text();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(gets[0]?.aborted()).toBe(true);
    transport.abort();
    leader.close();
    follower.close();
  });

  it('in the leading tab, holds the stream and hands it over when its page goes away', async () => {
    const { leader, follower } = await leads();
    const { network, gets } = networkDouble();
    const leaderTransport = new AbortController();
    const followerTransport = new AbortController();
    await sessionFetch(network, leader)(URL_, { method: 'GET', signal: leaderTransport.signal });
    await sessionFetch(network, follower)(URL_, {
      method: 'GET',
      signal: followerTransport.signal,
    });
    expect(gets).toHaveLength(1);

    // The leader's page goes away: the follower's stream opens.
    leaderTransport.abort();
    leader.close();
    await vi.advanceTimersByTimeAsync(0);
    expect(gets).toHaveLength(2);
    expect(gets[0]?.aborted()).toBe(true);
    expect(gets[1]?.aborted()).toBe(false);
    followerTransport.abort();
    follower.close();
  });

  it('stops for good when the server has no GET stream (405)', async () => {
    const { leader, follower } = await leads();
    const { network } = networkDouble(405);
    const calls = vi.fn(network);
    const fetcher = sessionFetch(calls, leader);
    const transport = new AbortController();
    const stream = await fetcher(URL_, { method: 'GET', signal: transport.signal });
    expect(stream.status).toBe(200);
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toHaveBeenCalledTimes(1);
    await (await fetcher(URL_, rpc(1, 'tools/list'))).text();
    await vi.advanceTimersByTimeAsync(60_000);
    const gets = calls.mock.calls.filter(([, init]) => (init?.method ?? 'GET') === 'GET');
    expect(gets).toHaveLength(1);
    transport.abort();
    leader.close();
    follower.close();
  });
});
