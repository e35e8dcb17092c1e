import { describe, expect, it, vi } from 'vitest';
import type { McpSession } from './mcp-session.ts';
import { SessionPool } from './session-pool.ts';

interface FakeSession {
  key: string;
  kind: 'streamable-http' | 'sse';
  lost: undefined;
  retire: ReturnType<typeof vi.fn>;
}

/** A pool whose connects the test settles by hand. */
function pool(kind: FakeSession['kind'] = 'streamable-http', maxIdle = 2) {
  const connects: { key: string; finish(): FakeSession }[] = [];
  const sessions: FakeSession[] = [];
  const sessionPool = new SessionPool({
    maxIdle,
    endSessionMs: 1234,
    open: (key) =>
      new Promise<McpSession>((resolve) => {
        connects.push({
          key,
          finish: () => {
            const session: FakeSession = { key, kind, lost: undefined, retire: vi.fn() };
            sessions.push(session);
            resolve(session as unknown as McpSession);
            return session;
          },
        });
      }),
  });
  return { sessionPool, connects, sessions };
}

const shared = { exclusive: false, sharedStream: () => false };

describe('SessionPool', () => {
  it('never ends a session that an operation uses or still awaits, however many header sets', async () => {
    const { sessionPool, connects, sessions } = pool();
    const waiting = sessionPool.acquire('user-0', {}, shared);
    const others = Array.from({ length: 20 }, (_, index) =>
      sessionPool.acquire(`user-${index + 1}`, {}, shared),
    );
    for (const connect of connects) connect.finish();
    const leases = await Promise.all([waiting, ...others]);
    expect(sessions.every((session) => session.retire.mock.calls.length === 0)).toBe(true);

    for (const lease of leases.slice(1)) lease.release();
    // 20 idle, 2 kept: the 18 least recently used idle ones are ended (with a DELETE bound).
    expect(sessions.filter((session) => session.retire.mock.calls.length > 0)).toHaveLength(18);
    expect(sessions[0]?.retire).not.toHaveBeenCalled(); // still in use
    expect(sessions[1]?.retire).toHaveBeenCalledWith(1234);
    expect(sessions[19]?.retire).not.toHaveBeenCalled(); // kept: most recently used
    leases[0]?.release();
    // Now three are idle: the least recently used one of them (user 19) is ended.
    expect(sessions[0]?.retire).not.toHaveBeenCalled();
    expect(sessions[19]?.retire).toHaveBeenCalledWith(1234);
    expect(sessions[20]?.retire).not.toHaveBeenCalled();
  });

  it('one connect per header set, shared by everyone waiting for it', async () => {
    const { sessionPool, connects } = pool();
    const first = sessionPool.acquire('ada', {}, shared);
    const second = sessionPool.acquire('ada', {}, { exclusive: true, sharedStream: () => false });
    expect(connects).toHaveLength(1);
    connects[0]?.finish();
    expect((await first).session).toBe((await second).session);
  });

  it('exclusive leases on legacy SSE get a session each; others share', async () => {
    const { sessionPool, connects } = pool('sse');
    const exclusive = { exclusive: true, sharedStream: () => true };
    const one = sessionPool.acquire('ada', {}, exclusive);
    const two = sessionPool.acquire('ada', {}, exclusive);
    const listing = sessionPool.acquire('ada', {}, shared);
    expect(connects).toHaveLength(2);
    for (const connect of connects) connect.finish();
    const [a, b, c] = await Promise.all([one, two, listing]);
    expect(a.session).not.toBe(b.session);
    expect(c.session).toBe(a.session);
    a.release();
    // Free again: the next exclusive lease reuses it instead of connecting.
    const three = await sessionPool.acquire('ada', {}, exclusive);
    expect(three.session).toBe(a.session);
    expect(connects).toHaveLength(2);
  });

  it('a discarded session is handed out no more, and closed once its last lease is released', async () => {
    const { sessionPool, connects, sessions } = pool();
    const acquiring = sessionPool.acquire('ada', {}, shared);
    connects[0]?.finish();
    const lease = await acquiring;
    sessionPool.discard(lease.session);
    expect(sessions[0]?.retire).not.toHaveBeenCalled();
    const next = sessionPool.acquire('ada', {}, shared);
    expect(connects).toHaveLength(2);
    lease.release();
    expect(sessions[0]?.retire).toHaveBeenCalledWith(); // no DELETE: it expired or was lost
    connects[1]?.finish();
    expect((await next).session).not.toBe(lease.session);
  });

  it('gives up with the reason when every new session is lost before its first use', async () => {
    let connects = 0;
    const lost = new Error('the event stream closed');
    const sessionPool = new SessionPool({
      maxIdle: 2,
      endSessionMs: 1,
      open: async (key) => {
        connects++;
        return { key, kind: 'sse', lost, retire: vi.fn() } as unknown as McpSession;
      },
    });
    await expect(sessionPool.acquire('ada', {}, shared)).rejects.toBe(lost);
    expect(connects).toBe(3);
  });
});
