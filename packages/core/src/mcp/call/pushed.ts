import type { ToolContext } from '../../tools/tool-types.ts';
import type { InputRequest, Resolution } from '../../vocabulary/interrupts.ts';
import type { CallTimer } from '../call-timer.ts';
import { scrubRequest, type McpCallScope } from './call-scope.ts';
import { sameRequest, toElicitResult } from './elicitation.ts';
import {
  FRESH_CALL,
  type ActiveCall,
  type PushedResumeState,
  type ResumeOutcome,
  type StoredAnswer,
} from './resume-state.ts';

/*
 * A pushed `elicitation/create` (2025 era) arrives while the call is open on the server, which
 * waits for the answer: the call asks the human live (`requestInput`, its clocks paused). Only
 * when the run cannot wait (it pauses, or the page reloads) is the request stored as a
 * `pushed` resume state; the call is then made again, and when the server asks the same
 * question, the stored answer is given without asking the human twice.
 */

/** Keeps the human's answer for when the re-issued call's server asks the same again. */
export function resumePushed(state: PushedResumeState, resolution: Resolution): ResumeOutcome {
  return { plan: { ...FRESH_CALL, storedAnswer: { request: state.request, resolution } } };
}

/**
 * How the call answers the server's pushed requests: the stored answer for the question asked
 * before the reload (once), otherwise the human, through `requestInput` with a `pushed` resume
 * state (marked `reissued` while a stored answer is still waiting for its question; a call
 * holding a task stores its task state instead, see `task.ts`).
 */
export function interruptForPushed(
  scope: McpCallScope,
  context: ToolContext,
  timer: CallTimer,
  storedAnswer: StoredAnswer | undefined,
  resumeStateFor: (request: InputRequest) => unknown = (request) =>
    ({ kind: 'pushed', request }) satisfies PushedResumeState,
): ActiveCall {
  let stored = storedAnswer;
  return {
    ask: async (request) => {
      if (stored !== undefined && sameRequest(stored.request, request)) {
        // The server asked again what the user already answered before the reload.
        const { resolution } = stored;
        stored = undefined;
        return toElicitResult(resolution, request.requestedSchema);
      }
      const shown = scrubRequest(scope, request);
      const asked = stored === undefined ? shown : { ...shown, reissued: true };
      timer.pause();
      try {
        const resolution = await context.requestInput(asked, resumeStateFor(request));
        return toElicitResult(resolution, request.requestedSchema);
      } finally {
        timer.resume();
      }
    },
  };
}
