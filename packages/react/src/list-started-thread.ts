import type { AgentThreads, ChatMessage, ThreadSummary } from '@switchboard/core';
import type { QueryClient } from '@tanstack/react-query';
import { switchboardQueryKeys } from './query-keys.ts';

/**
 * Shows a thread in the cached thread list (`useThreads`) from its first message, while its
 * first run still streams: the stored list only has it once the run's row is written (after
 * `run.started`), and `useAgent` refetches the list when the run ends. The entry is the one the
 * store will list (title: the first user message, cut to 80 characters as
 * `titleFromItems` does); a list that is not loaded, or already has the thread, is left alone.
 */
export function listStartedThread(
  queryClient: QueryClient,
  history: AgentThreads,
  threadId: string,
  messages: readonly ChatMessage[],
  now: number = Date.now(),
): void {
  const title = titleOf(messages);
  if (title === undefined) return;
  queryClient.setQueryData<ThreadSummary[]>(switchboardQueryKeys.threads(history), (threads) => {
    if (threads === undefined || threads.some((thread) => thread.threadId === threadId)) {
      return threads;
    }
    return [{ threadId, title, createdAt: now, updatedAt: now }, ...threads];
  });
}

function titleOf(messages: readonly ChatMessage[]): string | undefined {
  for (const message of messages) {
    if (message.role !== 'user') continue;
    const first = message.parts[0];
    if (first?.type !== 'text') continue;
    const text = first.text.replace(/\s+/g, ' ').trim();
    return text.length > 80 ? `${text.slice(0, 79)}…` : text;
  }
  return undefined;
}
