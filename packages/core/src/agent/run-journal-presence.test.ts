import { describe, expect, it, vi } from 'vitest';
import { userMessage } from '../history/history-store-contract.ts';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import {
  heldPresenceLocks,
  OwnerPresence,
  PRESENCE_LINGER_MS,
  type PageLifecycle,
} from '../internal/owner-presence.ts';
import { ReplayChannel } from '../internal/replay-channel.ts';
import { lockManagerDouble } from '../internal/web-locks-test-support.ts';
import type { Chunk } from './chunks.ts';
import { loadRecovered } from './recover-run.ts';
import { RunJournal, writeOtherRun } from './run-journal.ts';

/** A journal of a new run on thread `t`, owned by `tab 1`, with a page double. */
function setup() {
  const locks = lockManagerDouble();
  const fired = new Map<string, ((event: { persisted?: boolean }) => void)[]>();
  const page: PageLifecycle = {
    addEventListener: (type, listener) => fired.set(type, [...(fired.get(type) ?? []), listener]),
  };
  const fire = (type: 'pagehide' | 'pageshow', persisted: boolean): void => {
    for (const listener of fired.get(type) ?? []) listener({ persisted });
  };
  const presence = new OwnerPresence({ locks, page, id: 'tab 1' });
  const history = new MemoryHistoryStore();
  const journal = new RunJournal({
    history,
    threadId: 't',
    channel: new ReplayChannel<Chunk>(),
    owner: 'tab 1',
    leaseMs: 30_000,
    presence,
  });
  journal.runId = 'r1';
  journal.beginNew([], [userMessage('pay')], null);
  /** What another tab's load does: recover the thread's stale rows, presence told by the locks. */
  const otherTabLoads = () =>
    loadRecovered('t', {
      history,
      owner: 'tab 2',
      write: (row, version) => writeOtherRun(history, row, version),
      heldLocks: () => heldPresenceLocks(locks),
    });
  return { locks, presence, history, journal, fire, otherTabLoads };
}

describe('RunJournal presence', () => {
  it("names the page's lock in its lease and holds it until the terminal write", async () => {
    const { locks, presence, history, journal, otherTabLoads } = setup();
    await journal.claim();
    const [running] = await history.loadRuns('t');
    expect(running?.lease).toMatchObject({ owner: 'tab 1', lock: presence.lockName });
    expect(await heldPresenceLocks(locks)).toEqual(new Set([presence.lockName]));
    // Another tab sees the run alive (lock held), though it could check only the lock.
    expect((await otherTabLoads())[0]).toMatchObject({ status: 'running' });

    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const result = await journal.finish('completed');
      expect(result.status).toBe('completed');
      expect((await history.loadRuns('t'))[0]).toMatchObject({ status: 'completed' });
      // The lock lingers for the page's next run; harmless, as the row is no longer `running`:
      // another tab's load leaves it as it is.
      expect(await heldPresenceLocks(locks)).toEqual(new Set([presence.lockName]));
      expect((await otherTabLoads())[0]).toMatchObject({ status: 'completed' });
      vi.advanceTimersByTime(PRESENCE_LINGER_MS);
      await vi.waitFor(async () => expect(await heldPresenceLocks(locks)).toEqual(new Set()));
    } finally {
      vi.useRealTimers();
    }
  });

  it('a page gone on pagehide is recovered by another tab at once, not after the lease', async () => {
    const { locks, history, journal, fire, otherTabLoads } = setup();
    await journal.claim();
    fire('pagehide', false);
    await vi.waitFor(async () => expect(await heldPresenceLocks(locks)).toEqual(new Set()));

    const [row] = await otherTabLoads();
    expect(row).toMatchObject({ status: 'failed', error: { code: 'outcome_unknown' } });
    expect((await history.loadRuns('t'))[0]?.status).toBe('failed');
  });

  it('back from the bfcache, a run another tab recovered meanwhile is lost, never continued', async () => {
    const { history, journal, fire, otherTabLoads } = setup();
    await journal.claim();
    journal.append([{ type: 'function_call', callId: 'c1', name: 'pay', arguments: '{}' }]);
    fire('pagehide', true);
    const [recovered] = await otherTabLoads();
    expect(recovered).toMatchObject({ status: 'failed', error: { code: 'outcome_unknown' } });

    fire('pageshow', true);
    // Its writes are compare-and-sets against the version it last wrote: the row is taken.
    const result = await journal.finish('completed');
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('run_claimed');
    // What the other tab wrote stands: the call's outcome stays unknown, nothing ran again.
    expect((await history.loadRuns('t'))[0]).toEqual(recovered);
  });

  it('back from the bfcache with nobody recovering meanwhile, the run holds its lease again', async () => {
    const { locks, presence, history, journal, fire } = setup();
    await journal.claim();
    fire('pagehide', true);
    fire('pageshow', true);
    await vi.waitFor(async () => expect((await history.loadRuns('t'))[0]?.version).toBe(2));
    expect((await history.loadRuns('t'))[0]?.lease?.lock).toBe(presence.lockName);
    expect(await heldPresenceLocks(locks)).toEqual(new Set([presence.lockName]));
    expect((await journal.finish('completed')).status).toBe('completed');
  });

  it('a store other processes share (not sharedWithinLockScope) gets no lock: the lease decides', async () => {
    const locks = lockManagerDouble();
    const presence = new OwnerPresence({ locks, id: 'process 1' });
    // A JSONL or PostgreSQL store: another process's lock manager never holds this one's locks.
    class ProcessSharedStore extends MemoryHistoryStore {
      override readonly sharedWithinLockScope = false;
    }
    const history = new ProcessSharedStore();
    const journal = new RunJournal({
      history,
      threadId: 't',
      channel: new ReplayChannel<Chunk>(),
      owner: 'process 1',
      leaseMs: 30_000,
      presence,
    });
    journal.runId = 'r1';
    journal.beginNew([], [userMessage('pay')], null);
    await journal.claim();
    const [running] = await history.loadRuns('t');
    expect(running?.lease?.owner).toBe('process 1');
    expect(running?.lease?.lock).toBeUndefined();
    expect(await heldPresenceLocks(locks)).toEqual(new Set());

    // A lease that names a lock (written by a browser page) is not judged by this realm's locks.
    await writeOtherRun(
      history,
      {
        ...running!,
        lease: { ...running!.lease!, owner: 'page 2', lock: 'switchboard.run-owner x' },
      },
      running!.version ?? 0,
    );
    const rows = await loadRecovered('t', {
      history,
      owner: 'process 2',
      write: (row, version) => writeOtherRun(history, row, version),
    });
    expect(rows[0]).toMatchObject({ status: 'running' });
    await journal.finish('completed').catch(() => undefined);
  });

  it('a run whose terminal write failed is recovered by another tab once the linger ends, its call not run again', async () => {
    const { locks, presence, history, journal, otherTabLoads } = setup();
    await journal.claim();
    journal.append([{ type: 'function_call', callId: 'c1', name: 'pay', arguments: '{}' }]);
    await journal.commit();
    // The store fails from now on: the terminal write (and the `failed` one after it) is lost.
    const write = vi
      .spyOn(history, 'compareAndSetRun')
      .mockRejectedValue(new Error('QuotaExceededError'));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    try {
      const result = await journal.finish('completed');
      expect(result).toMatchObject({ status: 'failed', error: { code: 'history_error' } });
      write.mockRestore();
      // The row is left `running`, naming a lock that still lingers: another tab waits.
      expect((await history.loadRuns('t'))[0]).toMatchObject({ status: 'running' });
      expect((await history.loadRuns('t'))[0]?.lease?.lock).toBe(presence.lockName);
      expect((await otherTabLoads())[0]).toMatchObject({ status: 'running' });

      vi.advanceTimersByTime(PRESENCE_LINGER_MS);
      await vi.waitFor(async () => expect(await heldPresenceLocks(locks)).toEqual(new Set()));
      // The lease (30 s) is far from expiry: the free lock alone says the owner is done.
      const [row] = await otherTabLoads();
      expect(row).toMatchObject({ status: 'failed', error: { code: 'outcome_unknown' } });
      expect(row?.items.filter((item) => item.type === 'function_call_output')).toEqual([
        expect.objectContaining({
          callId: 'c1',
          output: expect.objectContaining({
            isError: true,
            error: expect.objectContaining({ code: 'outcome_unknown' }),
          }),
        }),
      ]);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a row a failed terminal write left is recovered at the latest when its lease expires, even while the page keeps running other runs', async () => {
    const { locks, presence, history, journal, otherTabLoads } = setup();
    await journal.claim();
    const write = vi
      .spyOn(history, 'compareAndSetRun')
      .mockRejectedValue(new Error('QuotaExceededError'));
    expect((await journal.finish('completed')).status).toBe('failed');
    write.mockRestore();
    // The page's next run (another thread) joins while the lock lingers and runs on.
    const next = await presence.join();
    const [orphan] = await history.loadRuns('t');
    expect(orphan?.status).toBe('running');
    expect(await heldPresenceLocks(locks)).toEqual(new Set([presence.lockName]));
    expect((await otherTabLoads())[0]?.status).toBe('running');
    // No heartbeat renews the orphan: once its lease expired, another tab recovers it.
    const rows = await loadRecovered('t', {
      history,
      owner: 'tab 2',
      write: (row, version) => writeOtherRun(history, row, version),
      heldLocks: () => heldPresenceLocks(locks),
      now: (orphan?.lease?.expiresAt ?? 0) + 1,
    });
    expect(rows[0]).toMatchObject({ status: 'failed', error: { code: 'outcome_unknown' } });
    next();
  });
});
