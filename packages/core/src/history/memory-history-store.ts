import type { Item } from '../items.ts';
import {
  titleFromItems,
  type HistoryStore,
  type RunRecord,
  type ThreadSummary,
} from './history-store.ts';

/**
 * A {@link HistoryStore} in memory: the default, lost when the page or process goes away.
 * Records are copied in and out (`structuredClone`), so callers can never mutate stored state.
 */
export class MemoryHistoryStore implements HistoryStore {
  readonly #threads = new Map<string, { summary: ThreadSummary; runs: Map<string, RunRecord> }>();

  async loadItems(threadId: string): Promise<Item[]> {
    return (await this.loadRuns(threadId)).flatMap((run) => run.items);
  }

  async loadRuns(threadId: string): Promise<RunRecord[]> {
    const thread = this.#threads.get(threadId);
    if (thread === undefined) return [];
    return [...thread.runs.values()]
      .sort((a, b) => a.createdAt - b.createdAt)
      .map((run) => structuredClone(run));
  }

  async saveRun(run: RunRecord): Promise<void> {
    let thread = this.#threads.get(run.threadId);
    if (thread === undefined) {
      thread = {
        summary: {
          threadId: run.threadId,
          title: 'New thread',
          createdAt: run.createdAt,
          updatedAt: run.updatedAt,
        },
        runs: new Map(),
      };
      this.#threads.set(run.threadId, thread);
    }
    thread.runs.set(run.runId, structuredClone(run));
    thread.summary.updatedAt = Math.max(thread.summary.updatedAt, run.updatedAt);
    if (thread.summary.title === 'New thread') {
      thread.summary.title = titleFromItems(run.items) ?? 'New thread';
    }
  }

  async listThreads(): Promise<ThreadSummary[]> {
    return [...this.#threads.values()]
      .map((thread) => ({ ...thread.summary }))
      .sort((a, b) => b.updatedAt - a.updatedAt);
  }

  async renameThread(threadId: string, title: string): Promise<void> {
    const thread = this.#threads.get(threadId);
    if (thread !== undefined) thread.summary.title = title;
  }

  async deleteThread(threadId: string): Promise<void> {
    this.#threads.delete(threadId);
  }
}
