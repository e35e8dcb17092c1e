import { CancelledError } from '@restatedev/restate-sdk';
import type * as restate from '@restatedev/restate-sdk';
import type { StepRunner } from '@switchboard/core';

/**
 * A {@link StepRunner} that journals every step of a run in Restate with `ctx.run`: after a
 * crash, Restate replays the handler on any worker and each journaled step returns its stored
 * result — a model call or tool call whose result is journaled never runs again. A step whose
 * result was not journaled yet (the worker died while it ran) runs again: Restate's
 * at-least-once for the step in flight, so a tool with side effects should be idempotent or
 * guarded by approval (docs/scale.md, "Durable runs on Restate").
 *
 * `onCancelled` is called when Restate cancels the invocation while a step is awaited (`stop()`).
 *
 * `live()` is false while the SDK replays the journal (`isProcessing()`), so the run emits no
 * chunk twice.
 */
export function restateSteps(ctx: restate.Context, onCancelled?: () => void): StepRunner {
  const internal = ctx as restate.Context & { isProcessing?: () => boolean };
  return {
    durable: true,
    // Our steps never throw (failures are part of their results), so Restate never retries a
    // finished step; a thrown error here is a bug and Restate's retry shows it in its logs.
    run: async (name, step) => {
      try {
        return await ctx.run(name, step);
      } catch (error) {
        // Restate cancelled the invocation: the awaited step rejects; the run stops.
        if (error instanceof CancelledError) onCancelled?.();
        throw error;
      }
    },
    live: () => internal.isProcessing?.() !== false,
  };
}
