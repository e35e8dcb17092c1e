import { TOOL_ERROR_TEXT } from '../tools/tool-errors.ts';
import type { ChatToolCallPart } from './chat-message.ts';

/**
 * What became of a tool call, for a UI's badge. An error output is not always a failure: a
 * stopped run, a refused approval or sign-in, a pause the user moved on from and a call whose
 * answer was lost each have their own `error.code` (docs/architecture.md, "Invariants"), and a
 * UI should not call them "Error".
 */
export type ToolCallOutcome =
  | 'running'
  | 'waiting'
  | 'done'
  | 'error'
  /** The run was stopped while the call ran or waited (code `cancelled` or `aborted`). */
  | 'stopped'
  /** The user refused the call or what it needed (code `rejected` or `declined`). */
  | 'declined'
  /** The user dismissed the call or what it needed (code `cancelled`). */
  | 'cancelled'
  /** The call waited for an answer and the user moved on (code `unanswered`). */
  | 'unanswered'
  /** The call was sent and its answer lost: it may or may not have run (`outcome_unknown`). */
  | 'outcome_unknown';

/**
 * The outcome of `part`, from its state and its output's `error.code`: the same live and after
 * a reload, since the chat closes open calls with the outputs the run stores
 * (`closeOpenCalls`). Code `cancelled` is both "the user cancelled" and "the run was stopped";
 * the stopped one is told by the run journal's sentence, which stored threads keep.
 */
export function toolCallOutcome(part: ChatToolCallPart): ToolCallOutcome {
  if (part.state !== 'error') return part.state;
  const output = part.output;
  switch (output?.error?.code) {
    case 'cancelled':
      return output.text === TOOL_ERROR_TEXT.stoppedBeforeFinish ? 'stopped' : 'cancelled';
    case 'aborted':
      return 'stopped';
    case 'rejected':
    case 'declined':
      return 'declined';
    case 'unanswered':
      return 'unanswered';
    case 'outcome_unknown':
      return 'outcome_unknown';
    default:
      return 'error';
  }
}
