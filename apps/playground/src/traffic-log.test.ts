import { describe, expect, it } from 'vitest';
import { createServerFetch, TrafficLog } from './traffic-log.ts';

const endpoint = 'http://127.0.0.1:9/mcp';

/** A network that answers each request with the next status of `statuses`. */
function answering(...statuses: number[]): typeof fetch {
  return () => Promise.resolve(new Response(null, { status: statuses.shift() ?? 200 }));
}

const withSession = { 'mcp-session-id': 'abc' };
const post = (method: string, headers: Record<string, string> = withSession) => ({
  method: 'POST',
  headers,
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method }),
});

describe('traffic labels', () => {
  it('says a new session was opened only once the client sends initialize', async () => {
    const log = new TrafficLog();
    const serverFetch = createServerFetch({
      log,
      known2025: false,
      serverUrl: endpoint,
      fetch: answering(404, 200),
    });
    await serverFetch(endpoint, post('tools/call'));
    expect(log.getSnapshot().at(-1)?.note).toBe('the server does not know this session');
    await serverFetch(endpoint, post('initialize', {}));
    expect(log.getSnapshot()[0]?.note).toBe(
      'the server does not know this session; the client opened a new session',
    );
  });

  it('labels a GET answered 404 as no stream, and claims no new session without one', async () => {
    const log = new TrafficLog();
    const serverFetch = createServerFetch({
      log,
      known2025: false,
      serverUrl: endpoint,
      fetch: answering(404, 200),
    });
    await serverFetch(endpoint, { method: 'GET', headers: withSession });
    await serverFetch(endpoint, post('tools/list'));
    expect(log.getSnapshot().map((entry) => entry.note)).toEqual([
      'no event stream for this session',
      undefined,
    ]);
  });

  it('leaves a 404 without a session id unlabelled', async () => {
    const log = new TrafficLog();
    const serverFetch = createServerFetch({ log, known2025: false, fetch: answering(404) });
    await serverFetch(endpoint, post('initialize', {}));
    expect(log.getSnapshot()[0]).toMatchObject({ status: 404 });
    expect(log.getSnapshot()[0]?.note).toBeUndefined();
  });
});
