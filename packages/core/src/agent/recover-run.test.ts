import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isSwitchboardError, SwitchboardError } from '../errors/switchboard-error.ts';
import { makeRun, userMessage } from '../history/history-store-contract.ts';
import type { HistoryStore, RunRecord } from '../history/history-store.ts';
import { JsonlHistoryStore } from '../node/jsonl-history-store.ts';
import { expectEveryCallAnsweredOnce } from './agent-test-support.ts';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import { isStale, loadRecovered, recoverStaleRuns } from './recover-run.ts';

let directory: string | undefined;
afterEach(async () => {
  if (directory !== undefined) await rm(directory, { recursive: true, force: true });
});

/** What a journal's `writeOther` does: a compare-and-set that throws `run_claimed` on conflict. */
function writerFor(store: HistoryStore) {
  return async (row: RunRecord, expectedVersion: number) => {
    const result = await store.compareAndSetRun(row, expectedVersion);
    if (!result.written) throw new SwitchboardError('run_claimed', 'changed meanwhile');
  };
}

describe('recoverStaleRuns', () => {
  it('tells stale rows apart: expired, without a lease, or its own; not a live lease of another client', () => {
    const running = makeRun('t', 'r', 1, [], { status: 'running' });
    expect(isStale(running, 'me', 100)).toBe(true);
    expect(isStale({ ...running, lease: { owner: 'other', expiresAt: 99 } }, 'me', 100)).toBe(true);
    expect(isStale({ ...running, lease: { owner: 'me', expiresAt: 500 } }, 'me', 100)).toBe(true);
    expect(isStale({ ...running, lease: { owner: 'other', expiresAt: 500 } }, 'me', 100)).toBe(
      false,
    );
    expect(isStale({ ...running, status: 'paused' }, 'me', 100)).toBe(false);
  });

  it('a live lease whose presence lock is free is stale: its page closed or reloaded', () => {
    const running = makeRun('t', 'r', 1, [], {
      status: 'running',
      lease: { owner: 'other', expiresAt: 500, lock: 'lock of tab 1' },
    });
    expect(isStale(running, 'me', 100, new Set(['lock of tab 1']))).toBe(false);
    expect(isStale(running, 'me', 100, new Set(['lock of tab 2']))).toBe(true);
    // Presence unknown (no Web Locks here): the live lease decides.
    expect(isStale(running, 'me', 100)).toBe(false);
    // A lease without a lock (written in Node, or before presence) is judged by its expiry.
    const unlocked = { ...running, lease: { owner: 'other', expiresAt: 500 } };
    expect(isStale(unlocked, 'me', 100, new Set())).toBe(false);
  });

  it('loadRecovered recovers at once the run of a page that went away, and asks for locks only then', async () => {
    const store = new MemoryHistoryStore();
    const calls = [
      userMessage('pay'),
      { type: 'function_call' as const, callId: 'c1', name: 'pay', arguments: '{}' },
    ];
    const lease = { owner: 'reloaded tab', expiresAt: 60_000, lock: 'lock of the reloaded tab' };
    await store.compareAndSetRun(makeRun('t', 'r1', 1_000, calls, { status: 'running', lease }), 0);
    let asked = 0;
    const scope = (held: string[]) => ({
      history: store,
      owner: 'me',
      now: 2_000,
      write: writerFor(store),
      heldLocks: () => {
        asked += 1;
        return Promise.resolve(new Set(held));
      },
    });

    // The owner's lock is held: it still runs the run, which stays as it is.
    const alive = await loadRecovered('t', scope(['lock of the reloaded tab']));
    expect(alive[0]).toMatchObject({ status: 'running', version: 1 });
    expect(asked).toBe(1);

    // Its lock is free: recovered now, long before the lease expires; the call is not re-run,
    // its outcome is unknown.
    const [row] = await loadRecovered('t', scope([]));
    expect(asked).toBe(2);
    expect(row).toMatchObject({ status: 'failed', error: { code: 'outcome_unknown' }, version: 2 });
    expectEveryCallAnsweredOnce(row?.items ?? []);
    expect(row?.items.at(-1)).toMatchObject({
      callId: 'c1',
      output: { isError: true, error: { code: 'outcome_unknown' } },
    });

    // No live lease names a lock: no query at all.
    await loadRecovered('t', scope([]));
    expect(asked).toBe(2);
  });

  it('two clients recovering one row at once write exactly one output per open call', async () => {
    directory = await mkdtemp(join(tmpdir(), 'switchboard-recover-'));
    const first = new JsonlHistoryStore({ directory });
    const second = new JsonlHistoryStore({ directory });
    const crashed = makeRun(
      't',
      'r1',
      1_000,
      [
        userMessage('pay twice'),
        { type: 'function_call', callId: 'c1', name: 'pay', arguments: '{}' },
        { type: 'function_call', callId: 'c2', name: 'pay', arguments: '{}' },
        { type: 'function_call_output', callId: 'c1', output: { text: 'paid' } },
      ],
      { status: 'running', lease: { owner: 'dead tab', expiresAt: 1_500 } },
    );
    await first.compareAndSetRun(crashed, 0);
    const load = (store: HistoryStore) => store.loadRuns('t');

    const [a, b] = await Promise.all(
      [first, second].map(async (store, index) =>
        recoverStaleRuns('t', await load(store), {
          history: store,
          owner: `client ${index}`,
          now: 2_000,
          write: writerFor(store),
        }),
      ),
    );

    expect(a).toEqual(b);
    const row = a?.[0];
    expect(row).toMatchObject({ status: 'failed', error: { code: 'outcome_unknown' }, version: 2 });
    expect(row?.lease).toBeUndefined();
    expectEveryCallAnsweredOnce(row?.items ?? []);
    expect(row?.items.at(-1)).toMatchObject({
      callId: 'c2',
      output: { isError: true, error: { code: 'outcome_unknown' } },
    });
  });

  it('leaves a row alone whose owner renewed it meanwhile', async () => {
    directory = await mkdtemp(join(tmpdir(), 'switchboard-recover-'));
    const store = new JsonlHistoryStore({ directory });
    const row = makeRun('t', 'r1', 1_000, [userMessage('hi')], {
      status: 'running',
      lease: { owner: 'slow tab', expiresAt: 1_500 },
    });
    await store.compareAndSetRun(row, 0);
    const seen = await store.loadRuns('t');
    // The owner renews between our read and our write.
    await store.compareAndSetRun({ ...row, lease: { owner: 'slow tab', expiresAt: 9_000 } }, 1);
    const write = writerFor(store);
    let conflicts = 0;
    const runs = await recoverStaleRuns('t', seen, {
      history: store,
      owner: 'me',
      now: 2_000,
      write: async (next, expectedVersion) => {
        try {
          await write(next, expectedVersion);
        } catch (error) {
          if (isSwitchboardError(error, 'run_claimed')) conflicts += 1;
          throw error;
        }
      },
    });
    expect(conflicts).toBe(1);
    expect(runs[0]).toMatchObject({ status: 'running', lease: { expiresAt: 9_000 }, version: 2 });
  });
});
