import { SwitchboardError, isSwitchboardError } from '../errors/switchboard-error.ts';
import { TOOL_ERROR_TEXT, toolError } from '../tools/tool-errors.ts';
import type { PendingCall, RunRecord } from '../history/history-store.ts';
import type { CallTask } from './call-task.ts';
import type { Resolution } from '../vocabulary/interrupts.ts';
import type { RunJournal } from './run-journal.ts';
import type { ToolCalls } from './tool-calls.ts';
import { validateResolution } from './validate-resolution.ts';

/** Calls held in memory between a pause and its resume (live 2025-era elicitations). */
export type LiveCalls = Map<string, CallTask>;

/** How {@link claimPausedRun} went. */
export type ResumeStart =
  /** The run is ours: the paused turn's tasks, still waiting (see {@link deliverResolutions}). */
  | { type: 'claimed'; tasks: CallTask[] }
  /** An answer is invalid: nothing was written, the run stays paused. */
  | { type: 'invalid'; error: SwitchboardError; paused: RunRecord };

/**
 * Resumes the thread's paused run (the last of `runs`): checks the resolutions, then claims the
 * row (one compare-and-set: the answered calls leave the stored pending list, the row becomes
 * `running` under this client's lease) before anything runs, so of two resumes only one
 * proceeds. Returns the paused turn's tasks — live calls of this Agent adopted by the new run,
 * the others rebuilt from the stored interrupts.
 *
 * @throws SwitchboardError `not_paused`, `unknown_call_id` (nothing written); `run_claimed` when
 *   another client claimed the run first (nothing written); `history_error`.
 */
export async function claimPausedRun(
  journal: RunJournal,
  runs: readonly RunRecord[],
  resolutions: readonly Resolution[],
  liveCalls: LiveCalls,
  toolCalls: ToolCalls,
  reload: () => Promise<RunRecord[]>,
): Promise<ResumeStart> {
  let current = runs;
  for (let attempt = 1; ; attempt++) {
    const paused = pausedRunOf(journal.threadId, current);
    journal.continuePaused(current, paused);
    const pending = paused.state.pending;
    const seen = checkResolutions(journal.threadId, pending, resolutions);
    if (!(seen instanceof Set)) return { type: 'invalid', error: seen, paused };
    journal.emitStarted();
    try {
      await journal.claim(pending.filter((entry) => !seen.has(entry.call.callId)));
    } catch (error) {
      // The row changed since it was read. When it is still the same pause with these calls
      // waiting (a refused resume elsewhere only recorded its chunk numbering), try again;
      // otherwise another client claimed the run.
      if (!isSwitchboardError(error, 'run_claimed') || attempt === MAX_CLAIM_ATTEMPTS) throw error;
      current = await reload();
      const again = current.at(-1);
      const stillWaiting = new Set(again?.state?.pending.map((entry) => entry.call.callId));
      if (
        again?.runId !== paused.runId ||
        again.status !== 'paused' ||
        resolutions.some((resolution) => !stillWaiting.has(resolution.callId))
      ) {
        throw error;
      }
      continue;
    }
    const tasks = pending.map((entry) => {
      const live = liveCalls.get(entry.call.callId);
      if (live !== undefined) {
        toolCalls.adopt(live);
        return live;
      }
      const task = toolCalls.newTask(entry.call);
      task.restore(entry.interrupt, entry.resumeState);
      return task;
    });
    return { type: 'claimed', tasks };
  }
}

/** Claims tried before a resume gives up with `run_claimed` (see {@link claimPausedRun}). */
const MAX_CLAIM_ATTEMPTS = 3;

/** The thread's paused run (its last row). @throws SwitchboardError `not_paused`. */
function pausedRunOf(
  threadId: string,
  runs: readonly RunRecord[],
): RunRecord & { state: NonNullable<RunRecord['state']> } {
  const paused = runs.at(-1);
  if (paused === undefined || paused.status !== 'paused' || paused.state === undefined) {
    throw new SwitchboardError('not_paused', `Thread ${threadId} has no paused run to resume.`);
  }
  return paused as RunRecord & { state: NonNullable<RunRecord['state']> };
}

/**
 * The answered call ids, or the `invalid_resolution` error of the first invalid answer.
 *
 * @throws SwitchboardError `unknown_call_id` for a call that is not waiting or answered twice.
 */
function checkResolutions(
  threadId: string,
  pending: readonly PendingCall[],
  resolutions: readonly Resolution[],
): Set<string> | SwitchboardError {
  const byCall = new Map(pending.map((entry) => [entry.call.callId, entry]));
  const seen = new Set<string>();
  for (const resolution of resolutions) {
    const entry = byCall.get(resolution.callId);
    if (entry === undefined || seen.has(resolution.callId)) {
      throw new SwitchboardError(
        'unknown_call_id',
        `No interrupt of call "${resolution.callId}" is waiting in thread ${threadId}` +
          ` (waiting: ${[...byCall.keys()].join(', ') || 'none'}).`,
        { details: { callId: resolution.callId } },
      );
    }
    seen.add(resolution.callId);
    const invalid = validateResolution(entry.interrupt, resolution);
    if (invalid !== undefined) return invalid;
  }
  return seen;
}

/** Hands each resolution to its task: runs, refuses or re-runs the call, or wakes a live wait. */
export function deliverResolutions(
  tasks: readonly CallTask[],
  resolutions: readonly Resolution[],
  liveCalls: LiveCalls,
): void {
  for (const resolution of resolutions) {
    const task = tasks.find((candidate) => candidate.call.callId === resolution.callId);
    liveCalls.delete(resolution.callId);
    task?.resolve(resolution);
  }
}

/**
 * A new message on a paused thread: the paused run's live calls are abandoned (cancelled on the
 * server) and its pending calls are closed as unanswered, in one compare-and-set of its row.
 * Returns the row as written.
 *
 * @throws SwitchboardError `run_claimed` when another client changed the paused row meanwhile
 *   (it resumed it); `history_error`.
 */
export async function abandonPausedRun(
  journal: Pick<RunJournal, 'writeOther'>,
  paused: RunRecord,
  liveCalls: LiveCalls,
): Promise<RunRecord> {
  const items = [...paused.items];
  for (const entry of paused.state?.pending ?? []) {
    items.push({
      type: 'function_call_output',
      callId: entry.call.callId,
      output: toolError('unanswered', TOOL_ERROR_TEXT.unanswered),
    });
  }
  const closed: RunRecord = {
    ...paused,
    status: 'cancelled',
    items,
    state: { version: 1, pending: [], activatedTools: paused.state?.activatedTools ?? [] },
    updatedAt: Date.now(),
  };
  const version = await journal.writeOther(closed, paused.version ?? 0);
  for (const entry of paused.state?.pending ?? []) {
    liveCalls
      .get(entry.call.callId)
      ?.abandon(new SwitchboardError('aborted', 'The user moved on without answering.'));
    liveCalls.delete(entry.call.callId);
  }
  return { ...closed, version };
}
