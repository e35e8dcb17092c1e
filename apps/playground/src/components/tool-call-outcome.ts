import type { ToolCallOutcome } from '@switchboard/core';

/** The badge text of each outcome (`toolCallOutcome`): only a failure says "Error". */
export const outcomeLabels: Record<ToolCallOutcome, string> = {
  running: 'Running…',
  waiting: 'Waiting for you',
  done: 'Done',
  error: 'Error',
  stopped: 'Stopped',
  declined: 'Declined',
  cancelled: 'Cancelled',
  unanswered: 'Not answered',
  outcome_unknown: 'Outcome unknown',
};
