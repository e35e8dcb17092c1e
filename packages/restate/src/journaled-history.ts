import * as restate from '@restatedev/restate-sdk';
import {
  SwitchboardError,
  isSwitchboardError,
  type HistoryStore,
  type SwitchboardErrorCode,
} from '@switchboard/core';

type Outcome<T> =
  { ok: true; value: T } | { ok: false; code: SwitchboardErrorCode; message: string };

/** How long {@link journaledHistory} keeps retrying a transient store failure, and how. */
export interface HistoryRetryOptions {
  /** Give up after this long (ms) and end the run with `history_error`. Default 120 000. */
  maxRetryDurationMs?: number;
  /** The first wait before a retry (ms); it doubles up to `maxRetryIntervalMs`. Default 100. */
  initialRetryIntervalMs?: number;
  /** The longest wait between two retries (ms). Default 2 000. */
  maxRetryIntervalMs?: number;
}

/**
 * `history` with every read and write of a run journaled as a Restate step, so a replay sees
 * the thread as the first execution did and makes no write twice (the stored rows moved on:
 * repeating a compare-and-set would fail). The store itself is shared by every worker (e.g.
 * `PostgresHistoryStore`), so UIs and other processes read the threads as usual.
 *
 * A failure the store calls transient (`history_error` with `details.transient`: it wrote
 * nothing, e.g. no pooled connection within its time limit under a burst of runs) is retried
 * by Restate with backoff (`retry`, default up to 2 minutes) rather than ending the run; any
 * other failure, or one still failing when the retries run out, ends the run with the store's
 * error as before — a journaled result, so a replay reports the same.
 */
export function journaledHistory(
  history: HistoryStore,
  ctx: restate.Context,
  retry: HistoryRetryOptions = {},
): HistoryStore {
  const runOptions = {
    maxRetryDuration: retry.maxRetryDurationMs ?? 120_000,
    initialRetryInterval: retry.initialRetryIntervalMs ?? 100,
    maxRetryInterval: retry.maxRetryIntervalMs ?? 2_000,
  };
  const step = async <T>(name: string, action: () => Promise<T>): Promise<T> => {
    let outcome: Outcome<T>;
    try {
      outcome = await ctx.run(
        name,
        async (): Promise<Outcome<T>> => {
          try {
            return { ok: true, value: await action() };
          } catch (error) {
            console.error('history step failed', name, error, (error as { cause?: unknown }).cause);
            // Thrown: Restate retries the step (nothing was written, it may work later).
            if (isSwitchboardError(error, 'history_error') && error.details?.transient === true) {
              throw error;
            }
            // Any other store failure is the run's to report (`history_error`), not Restate's to
            // retry.
            return {
              ok: false,
              code: isSwitchboardError(error) ? error.code : 'history_error',
              message: error instanceof Error ? error.message : String(error),
            };
          }
        },
        runOptions,
      );
    } catch (error) {
      // Cancellation (`stop()`) is the run's to handle, as for any step.
      if (error instanceof restate.CancelledError || !(error instanceof restate.TerminalError)) {
        throw error;
      }
      // The retries ran out (Restate journaled the last failure as terminal).
      throw new SwitchboardError('history_error', `${name} kept failing: ${error.message}`);
    }
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
