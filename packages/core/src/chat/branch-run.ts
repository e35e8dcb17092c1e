import { SwitchboardError } from '../errors/switchboard-error.ts';
import type { RunRecord } from '../history/history-store.ts';
import { branchPath, branchPositions, parentsOf, siblingsOf } from '../history/run-tree.ts';
import type { MessageItem } from '../vocabulary/items.ts';
import { branchMessages } from './branch-messages.ts';
import type { ChatMessage } from './chat-message.ts';

/** What a new branch from a run needs: where it starts, its input, what the chat shows first. */
export interface BranchRunPlan {
  /** The new run's parent: the edited or regenerated run's parent (`null`: thread start). */
  parentRunId: string | null;
  /** The new run's user messages. */
  input: MessageItem[];
  /** The messages of the branch up to the parent, as the chat shows them. */
  before: ChatMessage[];
  /** The edited or regenerated run and its siblings, oldest first (the new run comes last). */
  siblings: string[];
}

/**
 * Plans an edit (`text` given: the run's first user message with that text, its attached parts
 * kept) or a regeneration (the run's user messages again) of the run `runId` of `runs`: a new
 * sibling of that run (docs/conversations.md, "Branches"). Nothing of the thread is copied.
 *
 * @throws SwitchboardError `invalid_input` when the thread has no such run, the run starts with
 *   no user message, or the edited text is empty.
 */
export function planBranchRun(
  runs: readonly RunRecord[],
  runId: string,
  text?: string,
): BranchRunPlan {
  const run = runs.find((candidate) => candidate.runId === runId);
  if (run === undefined) {
    throw new SwitchboardError('invalid_input', `The thread has no run "${runId}".`, {
      details: { reason: 'unknown_run' },
    });
  }
  const leading: MessageItem[] = [];
  for (const item of run.items) {
    if (item.type !== 'message' || item.role !== 'user') break;
    leading.push(item);
  }
  const first = leading[0];
  if (first === undefined) {
    throw new SwitchboardError(
      'invalid_input',
      `Run "${runId}" starts with no user message: there is nothing to edit or regenerate.`,
      { details: { reason: 'no_user_message' } },
    );
  }
  if (text !== undefined && text.trim() === '') {
    throw new SwitchboardError('invalid_input', 'An edited message needs some text.', {
      details: { reason: 'empty_message' },
    });
  }
  const parentRunId = parentsOf(runs).get(runId) ?? null;
  const path = parentRunId === null ? [] : branchPath(runs, parentRunId);
  return {
    parentRunId,
    input: text === undefined ? leading : [{ ...first, content: text }],
    before: branchMessages(path, branchPositions(runs, path)),
    siblings: siblingsOf(runs, runId),
  };
}
