import type * as restate from '@restatedev/restate-sdk';
import {
  SwitchboardError,
  isSwitchboardError,
  type HistoryStore,
  type SwitchboardErrorCode,
} from '@switchboard/core';

type Outcome<T> =
  { ok: true; value: T } | { ok: false; code: SwitchboardErrorCode; message: string };

/**
 * `history` with every read and write of a run journaled as a Restate step, so a replay sees
 * the thread as the first execution did and makes no write twice (the stored rows moved on:
 * repeating a compare-and-set would fail). The store itself is shared by every worker (e.g.
 * `PostgresHistoryStore`), so UIs and other processes read the threads as usual.
 */
export function journaledHistory(history: HistoryStore, ctx: restate.Context): HistoryStore {
  const step = async <T>(name: string, action: () => Promise<T>): Promise<T> => {
    const outcome = await ctx.run(name, async (): Promise<Outcome<T>> => {
      try {
        return { ok: true, value: await action() };
      } catch (error) {
        // A store failure is the run's to report (`history_error`), not Restate's to retry.
        return {
          ok: false,
          code: isSwitchboardError(error) ? error.code : 'history_error',
          message: error instanceof Error ? error.message : String(error),
        };
      }
    });
    if (!outcome.ok) throw new SwitchboardError(outcome.code, outcome.message);
    return outcome.value;
  };
  return {
    loadItems: (threadId) => step('history.loadItems', () => history.loadItems(threadId)),
    loadRuns: (threadId) => step('history.loadRuns', () => history.loadRuns(threadId)),
    // Journaled like every read: a replay must see the rows (and cursor) the first execution saw.
    loadRunChanges: (threadId, since) =>
      step('history.loadRunChanges', () => history.loadRunChanges(threadId, since)),
    saveRun: (run) => step('history.saveRun', () => history.saveRun(run)),
    compareAndSetRun: (run, expectedVersion) =>
      step('history.compareAndSetRun', () => history.compareAndSetRun(run, expectedVersion)),
    listThreads: () => step('history.listThreads', () => history.listThreads()),
    renameThread: (threadId, title) =>
      step('history.renameThread', () => history.renameThread(threadId, title)),
    selectBranch: (threadId, selection) =>
      step('history.selectBranch', () => history.selectBranch(threadId, selection)),
    loadBranchSelection: (threadId) =>
      step('history.loadBranchSelection', () => history.loadBranchSelection(threadId)),
    deleteThread: (threadId) => step('history.deleteThread', () => history.deleteThread(threadId)),
  };
}
