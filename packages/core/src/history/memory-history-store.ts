import { SwitchboardError } from '../errors/switchboard-error.ts';
import type { Item } from '../vocabulary/items.ts';
import {
  DEFAULT_THREAD_TITLE,
  titleFromItems,
  type BranchSelection,
  type CompareAndSetResult,
  type HistoryStore,
  type RunChanges,
  type RunRecord,
  type ThreadCursor,
  type ThreadSummary,
} from './history-store.ts';
import { changeAfter, threadCursor } from './thread-cursor.ts';
import type { AttachmentStore } from './attachment-store.ts';
import { MemoryAttachmentStore } from './memory-attachment-store.ts';

/** One thread in memory. */
interface MemoryThread {
  summary: ThreadSummary;
  runs: Map<string, RunRecord>;
  branch?: BranchSelection;
  /** Unique per life of the thread: a thread deleted and written again gets a new one. */
  generation: string;
  /** The change number of the last write (see {@link HistoryStore.loadRunChanges}). */
  changes: number;
  /** Each write's change number and row id, in write order (binary-searched by change). */
  log: { change: number; runId: string }[];
}

/**
 * A {@link HistoryStore} in memory: the default, lost when the page or process goes away.
 * Records are copied in and out (`structuredClone`), so callers can never mutate stored state.
 * `loadRunChanges` reads a per-thread log of writes, so it copies only the rows written since
 * the cursor (`<generation>:<change>`).
 *
 * Every method settles asynchronously, as a real store's would, and rejects with
 * `SwitchboardError` `aborted` (the signal's reason as `cause`) when its `signal` has aborted by
 * then; an aborted call reads and writes nothing.
 */
export class MemoryHistoryStore implements HistoryStore {
  /** One realm: its readers and writers share this realm's Web Locks. */
  readonly sharedWithinLockScope: boolean = true;
  readonly #threads = new Map<string, MemoryThread>();
  readonly #attachments = new MemoryAttachmentStore();

  /** The bytes of attached files, per thread, in memory (see {@link HistoryStore.attachments}). */
  get attachments(): AttachmentStore {
    return this.#attachments;
  }

  async loadItems(threadId: string, options: { signal?: AbortSignal } = {}): Promise<Item[]> {
    await settle(options.signal);
    return this.#runs(threadId).flatMap((run) => run.items);
  }

  async loadRuns(threadId: string, options: { signal?: AbortSignal } = {}): Promise<RunRecord[]> {
    await settle(options.signal);
    return this.#runs(threadId);
  }

  /** See {@link HistoryStore.loadRunChanges}: O(rows written since `since`). */
  async loadRunChanges(
    threadId: string,
    since: ThreadCursor | undefined,
    options: { signal?: AbortSignal } = {},
  ): Promise<RunChanges> {
    await settle(options.signal);
    const thread = this.#threads.get(threadId);
    if (thread === undefined) return { runs: [], cursor: EMPTY_CURSOR, complete: true };
    const cursor = threadCursor(thread.generation, thread.changes);
    const after = changeAfter(since, thread.generation);
    if (after === undefined) return { runs: this.#runs(threadId), cursor, complete: true };
    const changed = new Set<string>();
    for (let index = firstChangeAfter(thread.log, after); index < thread.log.length; index++) {
      changed.add(thread.log[index]!.runId);
    }
    const runs = [...changed]
      .map((runId) => thread.runs.get(runId)!)
      .sort((a, b) => a.createdAt - b.createdAt)
      .map((run) => structuredClone(run));
    return { runs, cursor, complete: false };
  }

  async saveRun(run: RunRecord, options: { signal?: AbortSignal } = {}): Promise<void> {
    await settle(options.signal);
    this.#write(run);
  }

  /** See {@link HistoryStore.compareAndSetRun}: the check and the write happen in one step. */
  async compareAndSetRun(
    run: RunRecord,
    expectedVersion: number,
    options: { signal?: AbortSignal } = {},
  ): Promise<CompareAndSetResult> {
    await settle(options.signal);
    const stored = this.#threads.get(run.threadId)?.runs.get(run.runId);
    if ((stored?.version ?? 0) !== expectedVersion) {
      return {
        written: false,
        current: stored === undefined ? undefined : structuredClone(stored),
      };
    }
    const version = expectedVersion + 1;
    this.#write({ ...run, version });
    return { written: true, version };
  }

  #write(run: RunRecord): void {
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
        generation: crypto.randomUUID(),
        changes: 0,
        log: [],
      };
      this.#threads.set(run.threadId, thread);
    }
    thread.runs.set(run.runId, structuredClone(run));
    thread.changes++;
    thread.log.push({ change: thread.changes, runId: run.runId });
    // Only each row's latest write matters: keep the log within twice the rows.
    if (thread.log.length > 2 * thread.runs.size + 8) thread.log = latestWrites(thread.log);
    thread.summary.updatedAt = Math.max(thread.summary.updatedAt, run.updatedAt);
    if (thread.summary.title === 'New thread') {
      thread.summary.title = titleFromItems(run.items) ?? DEFAULT_THREAD_TITLE;
    }
  }

  async listThreads(options: { signal?: AbortSignal } = {}): Promise<ThreadSummary[]> {
    await settle(options.signal);
    return [...this.#threads.values()]
      .map((thread) => ({ ...thread.summary }))
      .sort((a, b) => b.updatedAt - a.updatedAt);
  }

  async renameThread(
    threadId: string,
    title: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    await settle(options.signal);
    const thread = this.#threads.get(threadId);
    if (thread !== undefined) thread.summary.title = title;
  }

  async selectBranch(
    threadId: string,
    selection: BranchSelection,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    await settle(options.signal);
    const thread = this.#threads.get(threadId);
    if (thread !== undefined) thread.branch = { ...selection };
  }

  async loadBranchSelection(
    threadId: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<BranchSelection | undefined> {
    await settle(options.signal);
    const branch = this.#threads.get(threadId)?.branch;
    return branch === undefined ? undefined : { ...branch };
  }

  async deleteThread(threadId: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    await settle(options.signal);
    this.#threads.delete(threadId);
    this.#attachments.deleteThread(threadId);
  }

  /** Copies of the thread's run rows, oldest first; `[]` for an unknown thread. */
  #runs(threadId: string): RunRecord[] {
    const thread = this.#threads.get(threadId);
    if (thread === undefined) return [];
    return [...thread.runs.values()]
      .sort((a, b) => a.createdAt - b.createdAt)
      .map((run) => structuredClone(run));
  }
}

/** The cursor of a thread that does not exist (yet): no generation, so never continued. */
const EMPTY_CURSOR = ':0';

/** Each row's latest entry of `log`, in write order. */
function latestWrites(
  log: readonly { change: number; runId: string }[],
): { change: number; runId: string }[] {
  const latest = new Map<string, number>();
  for (const entry of log) latest.set(entry.runId, entry.change);
  return log.filter((entry) => latest.get(entry.runId) === entry.change);
}

/** The index of the first log entry with a change number above `after` (binary search). */
function firstChangeAfter(log: readonly { change: number }[], after: number): number {
  let low = 0;
  let high = log.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (log[middle]!.change <= after) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * Waits one microtask (so an abort right after the call still counts, as with a store that does
 * I/O), then throws `aborted` when `signal` has aborted.
 */
async function settle(signal: AbortSignal | undefined): Promise<void> {
  await Promise.resolve();
  if (signal?.aborted) {
    throw new SwitchboardError('aborted', 'The history operation was aborted.', {
      cause: signal.reason,
    });
  }
}
