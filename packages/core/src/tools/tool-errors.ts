import type { ToolErrorCode } from '../vocabulary/error-codes.ts';
import type { ToolOutput } from '../vocabulary/items.ts';

/**
 * An error {@link ToolOutput}: what the model reads when a call did not succeed. `text` is
 * `message` unless given; `error.code` is the machine-readable {@link ToolErrorCode}.
 */
export function toolError(
  code: ToolErrorCode,
  message: string,
  text: string = message,
): ToolOutput {
  return { text, isError: true, error: { code, message } };
}

/**
 * The canonical sentences of the outputs Switchboard writes itself, in one place so the run,
 * the recovery and the chat UI say the same thing. Stored threads keep whatever text they were
 * written with.
 */
export const TOOL_ERROR_TEXT = {
  /** Approval refused (`rejected`). */
  rejected: 'The user declined this tool call.',
  /** Approval dismissed (`cancelled`). */
  cancelled: 'The user cancelled this tool call.',
  /** The paused call was left behind by a new message (`unanswered`). */
  unanswered: 'The user did not answer and moved on; this tool call was not completed.',
  /** The run was stopped while the call ran (`cancelled`). */
  stoppedBeforeFinish: 'The run was stopped before this tool call finished.',
  /** The run failed while the call ran (`failed`). */
  failedBeforeFinish: 'The run failed before this tool call finished.',
  /** The run's process or tab died while the call ran (`outcome_unknown`). */
  outcomeUnknown:
    'The outcome of this tool call is unknown: the run stopped (the page closed or the process ' +
    'died) while the call was in flight. It was not run again; check whether it took effect ' +
    'before calling it again.',
} as const;

/**
 * The output of a call that ends because the user refused what it needed (signing in, opening
 * a URL): `reject` → code `declined`, `cancel` → code `cancelled`. `describe` gets that verb.
 */
export function refusedByUser(
  action: 'reject' | 'cancel',
  describe: (verb: 'declined' | 'cancelled') => string,
): ToolOutput {
  const verb = action === 'reject' ? 'declined' : 'cancelled';
  return toolError(verb, describe(verb));
}
