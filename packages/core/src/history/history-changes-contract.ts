import { describe, expect, it } from 'vitest';
import type { HistoryStore, RunChanges, RunRecord } from './history-store.ts';
import {
  assistantMessage,
  makeRun,
  userMessage,
  type HistoryStoreHarness,
} from './history-store-contract.ts';

/**
 * The `loadRunChanges` part of the {@link HistoryStore} contract (docs/architecture.md, "Where
 * state lives"), run by `describeHistoryStore` for every store.
 */
export function describeRunChangesContract(harness: () => HistoryStoreHarness): void {
  describe('loadRunChanges', () => {
    const ids = (runs: readonly RunRecord[]) => runs.map((run) => run.runId);
    /** Checks an answer that should hold only `runs`. */
    const expectOnly = (changes: RunChanges, runs: RunRecord[]) => {
      expect(changes.complete).toBe(false);
      expect(changes.runs).toEqual(runs);
    };

    it('answers the whole thread first, then only the rows written since', async () => {
      const { store } = harness();
      const empty = await store.loadRunChanges('t1', undefined);
      expect(empty).toMatchObject({ runs: [], complete: true });

      await store.saveRun(makeRun('t1', 'r2', 2_000, [userMessage('second')]));
      await store.saveRun(makeRun('t1', 'r1', 1_000, [userMessage('first')]));
      const first = await store.loadRunChanges('t1', empty.cursor);
      expect(first.complete).toBe(true);
      expect(first.runs).toEqual(await store.loadRuns('t1'));

      expectOnly(await store.loadRunChanges('t1', first.cursor), []);

      const claimed = makeRun('t1', 'r3', 3_000, [userMessage('third')], { status: 'running' });
      expect(await store.compareAndSetRun(claimed, 0)).toMatchObject({ written: true });
      const done = { ...claimed, status: 'completed' as const, items: [...claimed.items] };
      done.items.push(assistantMessage('answer'));
      expect(await store.compareAndSetRun(done, 1)).toMatchObject({ written: true });
      await store.saveRun(makeRun('t1', 'r1', 1_000, [userMessage('first, edited')]));
      // A failed compare-and-set writes nothing, so it is no change.
      expect(await store.compareAndSetRun(done, 1)).toMatchObject({ written: false });

      const changes = await store.loadRunChanges('t1', first.cursor);
      // Each changed row once, as it now stands, in loadRuns order.
      expectOnly(changes, [
        makeRun('t1', 'r1', 1_000, [userMessage('first, edited')]),
        { ...done, version: 2 },
      ]);
      expectOnly(await store.loadRunChanges('t1', changes.cursor), []);
    });

    it('keeps threads apart', async () => {
      const { store } = harness();
      await store.saveRun(makeRun('t1', 'r1', 1_000, [userMessage('one')]));
      const start = await store.loadRunChanges('t1', undefined);
      await store.saveRun(makeRun('t2', 'r2', 2_000, [userMessage('two')]));
      expectOnly(await store.loadRunChanges('t1', start.cursor), []);
      // A cursor of another thread continues nothing: the whole thread.
      const other = await store.loadRunChanges('t2', start.cursor);
      expect(other.complete).toBe(true);
      expect(ids(other.runs)).toEqual(['r2']);
    });

    it('answers the whole thread for a malformed or foreign cursor', async () => {
      const { store } = harness();
      await store.saveRun(makeRun('t1', 'r1', 1_000, [userMessage('one')]));
      for (const cursor of ['', 'nonsense', '1:2:3', ':-1', 'x'.repeat(300)]) {
        const changes = await store.loadRunChanges('t1', cursor);
        expect(changes.complete).toBe(true);
        expect(ids(changes.runs)).toEqual(['r1']);
      }
    });

    it('never merges a thread deleted and written again with its former life', async () => {
      const { store } = harness();
      await store.saveRun(makeRun('t1', 'r1', 1_000, [userMessage('old life')]));
      await store.saveRun(makeRun('t1', 'r2', 2_000, [userMessage('old life too')]));
      const old = await store.loadRunChanges('t1', undefined);
      await store.deleteThread('t1');
      const gone = await store.loadRunChanges('t1', old.cursor);
      expect(gone).toMatchObject({ runs: [], complete: true });

      await store.saveRun(makeRun('t1', 'n1', 3_000, [userMessage('new life')]));
      await store.saveRun(makeRun('t1', 'n2', 4_000, [userMessage('again')]));
      await store.saveRun(makeRun('t1', 'n3', 5_000, [userMessage('and again')]));
      for (const cursor of [old.cursor, gone.cursor]) {
        const changes = await store.loadRunChanges('t1', cursor);
        expect(changes.complete).toBe(true);
        expect(ids(changes.runs)).toEqual(['n1', 'n2', 'n3']);
      }
    });

    it('hands out copies: mutating a row it returned changes nothing stored', async () => {
      const { store } = harness();
      await store.saveRun(makeRun('t1', 'r1', 1_000, [userMessage('Hello')]));
      const first = await store.loadRunChanges('t1', undefined);
      first.runs[0]!.items.push(assistantMessage('injected'));
      await store.saveRun(makeRun('t1', 'r2', 2_000, [userMessage('next')]));
      const next = await store.loadRunChanges('t1', first.cursor);
      next.runs[0]!.status = 'failed';
      expect(await store.loadRuns('t1')).toEqual([
        makeRun('t1', 'r1', 1_000, [userMessage('Hello')]),
        makeRun('t1', 'r2', 2_000, [userMessage('next')]),
      ]);
    });

    it("continues another instance's cursor and sees its writes (another tab, a reload)", async (context) => {
      const { store, reopen } = harness();
      // A store without shared storage (MemoryHistoryStore) has no other instance to test.
      if (reopen === undefined) return context.skip();
      const other: HistoryStore = reopen();
      await store.saveRun(makeRun('t1', 'r1', 1_000, [userMessage('from the first')]));
      const first = await store.loadRunChanges('t1', undefined);
      expectOnly(await other.loadRunChanges('t1', first.cursor), []);
      const row = makeRun('t1', 'r2', 2_000, [userMessage('from the other')], {
        status: 'running',
      });
      expect(await other.compareAndSetRun(row, 0)).toMatchObject({ written: true });
      const changes = await store.loadRunChanges('t1', first.cursor);
      expectOnly(changes, [{ ...row, version: 1 }]);
      expectOnly(await other.loadRunChanges('t1', changes.cursor), []);
    });

    it('rejects with `aborted` when the signal has aborted', async () => {
      const { store } = harness();
      await store.saveRun(makeRun('t1', 'r1', 1_000, [userMessage('Hello')]));
      const controller = new AbortController();
      controller.abort(new Error('user left'));
      await expect(
        store.loadRunChanges('t1', undefined, { signal: controller.signal }),
      ).rejects.toMatchObject({ code: 'aborted' });
    });
  });
}
