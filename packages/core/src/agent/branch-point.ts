import { SwitchboardError } from '../errors/switchboard-error.ts';
import type { HistoryStore, RunRecord } from '../history/history-store.ts';
import { selectedLeaf } from '../history/run-tree.ts';

/**
 * The run a new run follows (docs/conversations.md, "Branches"): the caller's `parentRunId`
 * when given (checked against the thread), else the leaf of the thread's selected branch;
 * `null` at the thread's start. `hasRun` tells whether `runs` has a run (the thread cache's
 * index, so a run start looks through no rows).
 *
 * @throws SwitchboardError `invalid_input` for a `parentRunId` the thread does not have;
 *   `history_error` from the store.
 */
export async function branchPointOf(
  setup: { history: HistoryStore; threadId: string; parentRunId?: string | null },
  runs: readonly RunRecord[],
  signal: AbortSignal,
  hasRun: (runId: string) => boolean,
): Promise<string | null> {
  const { parentRunId, threadId } = setup;
  if (parentRunId === null) return null;
  if (parentRunId !== undefined) {
    if (hasRun(parentRunId)) return parentRunId;
    throw new SwitchboardError(
      'invalid_input',
      `Thread ${threadId} has no run "${parentRunId}" to branch from.`,
      { details: { reason: 'unknown_parent_run' } },
    );
  }
  if (runs.length === 0) return null;
  const selection = await setup.history.loadBranchSelection(threadId, { signal });
  return selectedLeaf(runs, selection, hasRun) ?? null;
}
