import type { RunRecord } from '../history/history-store.ts';
import type { BranchPosition } from '../history/run-tree.ts';
import { chatMessagesFromItems, type ChatBranch, type ChatMessage } from './chat-message.ts';

/**
 * The messages of a branch (`path`: its runs, root first), each carrying its `runId`, and the
 * first message of each run its sibling position (`positions`, see `branchPositions`). Ids are
 * `m0`, `m1`, … in order, as `chatMessagesFromItems` gives them for the same items; assistant
 * output of a run that starts without a user message (rows imported by `saveRun`) joins the
 * assistant message before it, as it would in one list of items.
 */
export function branchMessages(
  path: readonly RunRecord[],
  positions: ReadonlyMap<string, BranchPosition>,
): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (const run of path) {
    const own = chatMessagesFromItems(run.items);
    const first = own[0];
    const previous = messages.at(-1);
    if (first?.role === 'assistant' && previous?.role === 'assistant') {
      previous.parts.push(...first.parts);
      own.shift();
    }
    const position = positions.get(run.runId);
    for (const [index, message] of own.entries()) {
      const shown: ChatMessage = { ...message, id: `m${messages.length}`, runId: run.runId };
      if (index === 0 && position !== undefined) shown.branch = chatBranch(position);
      messages.push(shown);
    }
  }
  return messages;
}

/** A {@link BranchPosition} as messages carry it. */
export function chatBranch(position: BranchPosition): ChatBranch {
  return { index: position.index, count: position.siblings.length, siblings: position.siblings };
}

/**
 * `messages` with `runId` on those that have none yet: the messages a streaming run added
 * (its user message and its answer) once the run has ended. The same array when none lacked it.
 */
export function withRunId(messages: readonly ChatMessage[], runId: string): readonly ChatMessage[] {
  if (messages.every((message) => message.runId !== undefined)) return messages;
  return messages.map((message) => (message.runId === undefined ? { ...message, runId } : message));
}
