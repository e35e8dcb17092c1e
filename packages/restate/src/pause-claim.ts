import * as restate from '@restatedev/restate-sdk';

/**
 * The object key whose exclusive `claim` handler decides who answers the pauses of `threadId`.
 * Not the thread's own key: a `run` handler waiting for a human holds that key's lock, and the
 * claim must be decided while it waits. Keys `<threadId>:claim` are reserved for this (thread ids
 * a browser sends never hold `:`).
 */
export function pauseClaimKey(threadId: string): string {
  return `${threadId}:claim`;
}

/**
 * One pause of a run: its run id and the stored row's version (and time of the write) when it
 * paused. A resumed run that pauses again is a new pause.
 */
export function pauseOf(row: { runId: string; version?: number; updatedAt: number }): string {
  return `${row.runId}@${row.version ?? 0}:${row.updatedAt}`;
}

/** Input of the `claim` handler. */
export interface PauseClaimInput {
  /** The pause answered ({@link pauseOf}). */
  pause: string;
  /** Who answers it: one id per answering `execute`. */
  claimant: string;
  /**
   * How long the claim holds (ms) when its claimant never delivers its answer (a client that
   * died between claiming and resolving); afterwards another client may claim the pause.
   */
  holdMs: number;
}

interface PauseClaimState {
  pause: string;
  claimant: string;
  expiresAt: number;
}

const CLAIM = 'claim';

/**
 * The exclusive `claim` handler: the first claimant of a pause wins, every other one is told
 * the winner. Exclusive per key, so two claims of one pause — two tabs answering an approval
 * at once, from any processes — are decided one after the other: exactly one answer reaches the
 * run, as the history store's compare-and-set decides for an in-process `Agent`.
 */
export const claimPause = restate.handlers.object.exclusive(
  async (ctx: restate.ObjectContext, input: PauseClaimInput): Promise<{ claimant: string }> => {
    const now = await ctx.date.now();
    const held = await ctx.get<PauseClaimState>(CLAIM);
    if (
      held !== null &&
      held.pause === input.pause &&
      (held.claimant === input.claimant || now < held.expiresAt)
    ) {
      return { claimant: held.claimant };
    }
    ctx.set<PauseClaimState>(CLAIM, {
      pause: input.pause,
      claimant: input.claimant,
      expiresAt: now + input.holdMs,
    });
    return { claimant: input.claimant };
  },
);
