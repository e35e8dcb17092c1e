import { isSwitchboardError } from '../errors/switchboard-error.ts';
import type { HistoryStore, PendingCall, RunRecord } from '../history/history-store.ts';
import type { FunctionCallOutputItem, Item } from '../vocabulary/items.ts';
import { TOOL_ERROR_TEXT, toolError } from '../tools/tool-errors.ts';
import { heldPresenceLocks } from '../internal/owner-presence.ts';
import { asHistoryError } from './run-journal.ts';

/** What {@link recoverStaleRuns} needs. */
export interface RecoveryScope {
  history: HistoryStore;
  /** Writes a recovered row (compare-and-set against `expectedVersion`): the run's journal. */
  write(row: RunRecord, expectedVersion: number): Promise<unknown>;
  /** The lease owner id of this client: its own `running` rows are stale (it runs none now). */
  owner: string;
  /** Milliseconds since the epoch. Default `Date.now()`. */
  now?: number;
  /**
   * Reads the thread's rows as they now stand: the agent's thread cache
   * (`ThreadCache.load`). Default `history.loadRuns`.
   */
  read?: (threadId: string, options: { signal?: AbortSignal }) => Promise<RunRecord[]>;
  /**
   * The thread's `running` rows of the last `read` (the thread cache keeps them), so a load
   * need not look through every row for stale ones. Default: filtered from the rows read.
   */
  running?: (threadId: string) => readonly RunRecord[] | undefined;
  /**
   * The presence locks held now (see `RunLease.lock`; `undefined`: cannot tell, go by expiry).
   * Asked only when a live lease names a lock. Default the origin's Web Locks (`heldPresenceLocks`).
   */
  heldLocks?: () => Promise<ReadonlySet<string> | undefined>;
}

/** The scope's way to read a thread's rows. */
function readerOf(scope: RecoveryScope): NonNullable<RecoveryScope['read']> {
  return scope.read ?? ((threadId, options) => scope.history.loadRuns(threadId, options));
}

/** Code of the output a recovered call gets, and of a recovered run's `error`. */
export const OUTCOME_UNKNOWN = 'outcome_unknown';

/**
 * True for a `running` row nobody runs any more: its lease expired, it has no lease (written
 * before leases existed), it is this client's own (this client runs no run of the thread
 * when it loads it, so its row was left by a run whose final write failed), or its owner is
 * gone — the presence lock the lease names is not among `heldLocks` (the page closed, reloaded
 * or went into the back/forward cache; see `OwnerPresence`). Without `heldLocks` (no Web Locks)
 * a live lease counts as alive.
 */
export function isStale(
  run: RunRecord,
  owner: string,
  now: number,
  heldLocks?: ReadonlySet<string>,
): boolean {
  if (run.status !== 'running') return false;
  const lease = run.lease;
  if (lease === undefined || lease.owner === owner || lease.expiresAt <= now) return true;
  return lease.lock !== undefined && heldLocks !== undefined && !heldLocks.has(lease.lock);
}

/**
 * The held presence locks when one of `running`'s live leases names a lock (else `undefined`,
 * without asking: most loads find no run of another page).
 */
async function presenceOf(
  running: readonly RunRecord[],
  scope: RecoveryScope,
  now: number,
): Promise<ReadonlySet<string> | undefined> {
  const asks = running.some(
    (run) =>
      run.status === 'running' && run.lease?.lock !== undefined && !isStale(run, scope.owner, now),
  );
  if (!asks) return undefined;
  if (scope.heldLocks !== undefined) return await scope.heldLocks();
  // Another process's locks are not in this one's manager: a free lock would prove nothing.
  if (scope.history.sharedWithinLockScope !== true) return undefined;
  return await heldPresenceLocks();
}

/**
 * Recovers the thread's stale `running` rows (see {@link isStale}) and returns the thread's rows
 * as they now stand. A recovered row becomes `failed` (error `outcome_unknown`), and every call
 * in it without an output gets exactly one: the output stored when it settled (`state.settled`),
 * or else an error saying the outcome is unknown: the tool is
 * never run again automatically, the model (and the user) decide. Calls that were resumable
 * (`state.resumable`, e.g. an MCP call following a task) are the exception: the row becomes
 * `paused` on them, with their stored interrupt (`mode: 'task'`), so resuming continues them —
 * through the same claim as any resume, so at most one client does. Each recovery is one
 * compare-and-set, so two clients recovering at once write one output per call; a row another
 * client changed meanwhile is read again.
 *
 * @throws SwitchboardError `history_error` when the store fails.
 */
export async function recoverStaleRuns(
  threadId: string,
  runs: RunRecord[],
  scope: RecoveryScope,
  heldLocks?: ReadonlySet<string>,
): Promise<RunRecord[]> {
  const now = scope.now ?? Date.now();
  const locks = heldLocks ?? (await presenceOf(runs, scope, now));
  if (!runs.some((run) => isStale(run, scope.owner, now, locks))) return runs;
  for (const run of runs) {
    if (!isStale(run, scope.owner, now, locks)) continue;
    try {
      await scope.write(recovered(run, now), run.version ?? 0);
    } catch (error) {
      // Another client recovered (or renewed) it first: the reload below shows what it wrote.
      if (!isSwitchboardError(error, 'run_claimed')) throw error;
    }
  }
  return await readerOf(scope)(threadId, {});
}

/**
 * The thread's rows as {@link recoverStaleRuns} leaves them: loads them and recovers stale
 * `running` rows first. What `Agent.execute` and `Agent.loadThread` read a thread with.
 *
 * @throws SwitchboardError `history_error` when the store fails; the store's `aborted` when
 *   `signal` aborts.
 */
export async function loadRecovered(
  threadId: string,
  scope: RecoveryScope & { signal?: AbortSignal },
): Promise<RunRecord[]> {
  const signal = scope.signal;
  const runs = await readerOf(scope)(threadId, signal === undefined ? {} : { signal }).catch(
    (error: unknown) => {
      throw signal?.aborted === true ? error : asHistoryError(error, 'load the thread');
    },
  );
  const running = scope.running?.(threadId) ?? runs;
  const now = scope.now ?? Date.now();
  const locks = await presenceOf(running, scope, now);
  if (!running.some((run) => isStale(run, scope.owner, now, locks))) return runs;
  return await recoverStaleRuns(threadId, runs, scope, locks).catch((error: unknown) => {
    throw asHistoryError(error, 'recover the thread');
  });
}

/** The row of a stale run once recovered. */
function recovered(run: RunRecord, now: number): RunRecord {
  const items: Item[] = [...run.items];
  const answered = new Set(
    items.flatMap((item) => (item.type === 'function_call_output' ? [item.callId] : [])),
  );
  const stored = new Map((run.state?.settled ?? []).map((output) => [output.callId, output]));
  const resumable = new Map(
    (run.state?.resumable ?? []).map((pending) => [pending.call.callId, pending]),
  );
  const pending: PendingCall[] = [];
  for (const item of run.items) {
    if (item.type === 'function_call' && !answered.has(item.callId)) {
      // A call that settled before the crash keeps its stored output; a resumable one waits.
      const output = stored.get(item.callId);
      const waiting = resumable.get(item.callId);
      if (output === undefined && waiting !== undefined) pending.push(waiting);
      else items.push(output ?? unknownOutcomeOutput(item.callId));
    }
  }
  if (pending.length > 0) {
    const row: RunRecord = {
      ...run,
      status: 'paused',
      items,
      state: { version: 1, pending, activatedTools: run.state?.activatedTools ?? [] },
      updatedAt: now,
    };
    delete row.lease;
    delete row.error;
    return row;
  }
  const row: RunRecord = {
    ...run,
    status: 'failed',
    items,
    error: {
      code: OUTCOME_UNKNOWN,
      message:
        'The run stopped without finishing (its page closed or reloaded, or its lease expired); ' +
        'calls in flight have an unknown outcome.',
    },
    state: { version: 1, pending: [], activatedTools: run.state?.activatedTools ?? [] },
    updatedAt: now,
  };
  delete row.lease;
  return row;
}

function unknownOutcomeOutput(callId: string): FunctionCallOutputItem {
  return {
    type: 'function_call_output',
    callId,
    output: toolError(OUTCOME_UNKNOWN, TOOL_ERROR_TEXT.outcomeUnknown),
  };
}
