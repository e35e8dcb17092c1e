import type { HistoryStore, RunRecord, ThreadCursor } from '../history/history-store.ts';
import type { Item } from '../vocabulary/items.ts';
import { BranchItems } from './branch-items.ts';

/** A branch of a thread as the model reads it (see {@link ThreadCache.branch}). */
export interface CachedBranch {
  /** The branch's last run (`undefined`: an empty branch, at the thread's start). */
  last: RunRecord | undefined;
  /** The items of the branch's runs, root first (shared with the next extension of the branch). */
  items: BranchItems;
  /** True when no item is an MCP Apps view's call or model context (see `modelItems`). */
  plain: boolean;
}

/** How many threads an `Agent` keeps the rows of (the most recently read). */
export const THREAD_CACHE_SIZE = 32;

/** One thread's rows as last read, and where the store's changes continue. */
interface CachedThread {
  cursor: ThreadCursor;
  /** The rows in `loadRuns` order, shared by every reader (never mutated). */
  runs: RunRecord[];
  /** Each row's index in `runs`. */
  positions: Map<string, number>;
  /** The rows whose status is `running` (what a load checks for stale runs), by run id. */
  running: Map<string, RunRecord>;
  /** The read in flight, so reads of one thread merge in the order the store answered them. */
  reading: Promise<unknown>;
  /** The branch asked for last, kept until a row at or before its last run is replaced. */
  branch?: CachedBranch;
}

/**
 * The rows of the threads an `Agent` read last (docs/architecture.md, "Where state lives"), so
 * that starting a run, opening a thread or closing a pause costs O(what changed), not
 * O(thread): each read asks the store for the rows written since the last one
 * (`HistoryStore.loadRunChanges`) and merges them. A read optimisation only: every write stays
 * a compare-and-set on the store, so rows read here that another client changed meanwhile cost
 * at most a refused write (`run_claimed`), after which the caller reads again.
 *
 * Rows are shared by every reader (only the store's copies are made, of changed rows): never
 * mutate one — build a new row (`{ ...row, items: [...row.items, …] }`, as the journal does) or
 * `structuredClone` it before handing it to code that may (a resume's pending calls go to
 * schema validators that annotate schemas; `Agent.loadThread` hands copies to apps). The arrays
 * returned are the caller's own.
 * Bounded: the {@link THREAD_CACHE_SIZE} most recently read threads.
 */
export class ThreadCache {
  readonly #history: HistoryStore;
  readonly #capacity: number;
  /** Least recently read first (a `Map` keeps insertion order). */
  readonly #threads = new Map<string, CachedThread>();

  constructor(history: HistoryStore, capacity = THREAD_CACHE_SIZE) {
    this.#history = history;
    this.#capacity = Math.max(1, capacity);
  }

  /** Ids of the threads held, least recently read first (for tests and diagnostics). */
  get threadIds(): string[] {
    return [...this.#threads.keys()];
  }

  /**
   * The thread's rows as the store has them now, oldest first (`[]` for an unknown thread):
   * one `loadRunChanges` call, merged into what this cache holds.
   *
   * @throws what the store's `loadRunChanges` throws (nothing is changed here then).
   */
  async load(threadId: string, options: { signal?: AbortSignal } = {}): Promise<RunRecord[]> {
    let entry = this.#threads.get(threadId);
    if (entry === undefined) {
      entry = {
        cursor: '',
        runs: [],
        positions: new Map(),
        running: new Map(),
        reading: Promise.resolve(),
      };
    }
    this.#touch(threadId, entry);
    const cached = entry;
    const read = cached.reading.then(async () => {
      const since = cached.cursor === '' ? undefined : cached.cursor;
      const changes = await this.#history.loadRunChanges(threadId, since, options);
      if (changes.complete) replaceAll(cached, changes.runs);
      else for (const run of changes.runs) merge(cached, run);
      cached.cursor = changes.cursor;
      return [...cached.runs];
    });
    cached.reading = read.catch(() => undefined);
    return await read;
  }

  /**
   * The branch ending at `leafRunId` of the thread as last read (`undefined` when the thread is
   * not held or has no such run): what a new run's model reads before its own items. Kept per
   * thread, so the next run start extends it by the items of the runs added since (no copy of
   * the item list, no walk of the thread: see `BranchItems`); a row of it replaced by a later
   * read drops it.
   */
  branch(threadId: string, leafRunId: string | null): CachedBranch | undefined {
    const entry = this.#threads.get(threadId);
    if (entry === undefined) return undefined;
    if (leafRunId === null) return { last: undefined, items: BranchItems.of([]), plain: true };
    const kept = entry.branch;
    const added: RunRecord[] = [];
    let prefix: CachedBranch | undefined;
    // Walks up from the leaf until the kept branch's last run (or the root).
    for (let id: string | null = leafRunId; id !== null;) {
      const at = entry.positions.get(id);
      const run = at === undefined ? undefined : entry.runs[at];
      if (run === undefined || at === undefined) return undefined;
      if (run === kept?.last) {
        prefix = kept;
        break;
      }
      added.push(run);
      // A corrupt cycle of parent links stops here.
      if (added.length > entry.runs.length) return undefined;
      id = run.parentRunId !== undefined ? run.parentRunId : (entry.runs[at - 1]?.runId ?? null);
    }
    if (added.length === 0 && prefix !== undefined) return prefix;
    added.reverse();
    const items = (prefix?.items ?? BranchItems.of([])).extend(added.flatMap((run) => run.items));
    const plain = (prefix?.plain ?? true) && added.every((run) => run.items.every(isPlain));
    entry.branch = { last: added.at(-1) ?? prefix?.last, items, plain };
    return entry.branch;
  }

  /**
   * Whether the thread as last read has the run `runId` (`undefined` when the thread is not
   * held): a run start's check of its branch point without looking through every row.
   */
  has(threadId: string, runId: string): boolean | undefined {
    return this.#threads.get(threadId)?.positions.has(runId);
  }

  /**
   * The thread's `running` rows as last read (`undefined` when the thread is not held): what a
   * run start checks for stale runs without looking through every row.
   */
  running(threadId: string): RunRecord[] | undefined {
    const entry = this.#threads.get(threadId);
    return entry === undefined ? undefined : [...entry.running.values()];
  }

  /** Drops the thread (e.g. after deleting it): its next read is a whole one. */
  forget(threadId: string): void {
    this.#threads.delete(threadId);
  }

  /** Marks the thread most recently read, dropping the least recently read beyond capacity. */
  #touch(threadId: string, entry: CachedThread): void {
    this.#threads.delete(threadId);
    this.#threads.set(threadId, entry);
    while (this.#threads.size > this.#capacity) {
      const oldest = this.#threads.keys().next().value as string;
      this.#threads.delete(oldest);
    }
  }
}

function replaceAll(entry: CachedThread, runs: readonly RunRecord[]): void {
  delete entry.branch;
  entry.runs = [...runs];
  entry.positions = new Map(entry.runs.map((run, index) => [run.runId, index]));
  entry.running = new Map();
  for (const run of entry.runs) if (run.status === 'running') entry.running.set(run.runId, run);
}

/** An item the model reads as it is: no MCP Apps view's call, no view's model context. */
function isPlain(item: Item): boolean {
  if (item.type === 'function_call') return item.requestedBy === undefined;
  return item.type !== 'message' || item.appContext === undefined;
}

/** Puts a changed row in its place: over its former version, else after the rows not newer. */
function merge(entry: CachedThread, run: RunRecord): void {
  if (run.status === 'running') entry.running.set(run.runId, run);
  else entry.running.delete(run.runId);
  const at = entry.positions.get(run.runId);
  // A replaced row at or before the kept branch's end may be part of it: build it again.
  const last = entry.branch?.last;
  if (at !== undefined && last !== undefined && entry.runs[at]!.createdAt <= last.createdAt) {
    delete entry.branch;
  }
  if (at !== undefined && entry.runs[at]?.createdAt === run.createdAt) {
    entry.runs[at] = run;
    return;
  }
  if (at !== undefined) entry.runs.splice(at, 1);
  let index = entry.runs.length;
  while (index > 0 && entry.runs[index - 1]!.createdAt > run.createdAt) index--;
  entry.runs.splice(index, 0, run);
  if (at === undefined && index === entry.runs.length - 1) {
    entry.positions.set(run.runId, index);
  } else {
    entry.positions = new Map(entry.runs.map((row, position) => [row.runId, position]));
  }
}
