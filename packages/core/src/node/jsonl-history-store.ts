import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { messageOf } from '../errors/message-of.ts';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import {
  threadEntryWithRun,
  type BranchSelection,
  type CompareAndSetResult,
  type HistoryStore,
  type RunChanges,
  type RunRecord,
  type ThreadCursor,
  type ThreadSummary,
} from '../history/history-store.ts';
import type { Item } from '../vocabulary/items.ts';
import type { AttachmentStore } from '../history/attachment-store.ts';
import { JsonlAttachmentStore, threadAttachmentDirectory } from './jsonl-attachment-store.ts';
import { withLockFile } from './lock-file.ts';
import { checkRun, runLine, type StoredRow } from './jsonl-run-lines.ts';
import {
  appendToThreadFile,
  cursorOffset,
  readThreadFile,
  threadCursor,
  type ThreadFile,
} from './jsonl-thread-file.ts';
import { encodeThreadId } from './thread-file-name.ts';

/** Options of {@link JsonlHistoryStore}. */
export interface JsonlHistoryStoreOptions {
  /** The directory for the files; created (with its parents) on the first write. */
  directory: string;
  /**
   * How many threads' parsed rows the store keeps in memory (least recently used dropped first),
   * so that reading a thread again only parses what was appended since. Default 16; 0 keeps none
   * (every read parses the whole file).
   */
  cachedThreads?: number;
}

/** A thread's entry in `threads.json`. */
interface ThreadEntry {
  title: string;
  /** `auto`: taken from the first user message; `user`: set by `renameThread`, kept from then on. */
  titleSource: 'auto' | 'user';
  createdAt: number;
  updatedAt: number;
  /** The selected branch (`selectBranch`); absent until the user switches branches. */
  branch?: BranchSelection;
}

/** The content of `threads.json`. */
interface ThreadIndex {
  version: 1;
  threads: Record<string, ThreadEntry>;
}

const INDEX_FILE = 'threads.json';
const DEFAULT_CACHED_THREADS = 16;
/**
 * A {@link HistoryStore} in files, for Node (`@switchboard/core/node`):
 *
 * - `<encoded threadId>.jsonl`: one JSON line per save of a run row; readers keep the last
 *   version per `runId` (at the place of its first line). Two kinds of line:
 *   - a full line is the row, `JSON.stringify(run)`; written for a new row, or when the saved
 *     row's `items` do not begin with the stored row's items (items replaced);
 *   - a delta line is written when they do (the agent saving a run as it goes): the row's other
 *     fields, without `items`, plus `"delta": { "base": <byte offset of the line of the stored
 *     row>, "baseItems": <its item count>, "baseVersion": <its version, 0 when absent>, "items":
 *     [<the items appended since>] }`. So a save writes O(new items), not O(run).
 *
 *   A delta line whose base is not the row's current line (a damaged file: a line lost or
 *   edited) is skipped like a malformed line, and so is every later delta line built on it: the
 *   row reads as its last version that can be rebuilt, never with items missing. Files with only
 *   full lines (written by older versions) read as before; older versions skip delta lines.
 *   The instance keeps, per thread (the `cachedThreads` most recently used), the rows it parsed
 *   and how far it read, so `loadRuns`, `loadRunChanges` and `compareAndSetRun` parse only the
 *   bytes appended since, by any instance or process. The file is read whole again when it is
 *   another file (device and inode), shorter than what was read, or has other bytes
 *   just before that point (rewritten in place).
 * - `<encoded threadId>.attachments/`: the bytes of the thread's attached files, one file each
 *   ({@link JsonlHistoryStore.attachments}); removed with the thread.
 * - `threads.json`: `{ version: 1, threads: { [threadId]: { title, titleSource, createdAt,
 *   updatedAt, branch? } } }` (`branch`: the selected branch), rewritten atomically (temporary file, fsync, rename) on every change.
 *
 * File names are safe for any thread id on any file system: characters other than `a-z`, `0-9`,
 * `-` and `_` become `~` and two lowercase hex digits per UTF-8 byte (so `Thread` and `thread`
 * differ on case-insensitive disks), Windows device names get their first letter escaped, the
 * empty id is `~`, and encodings longer than 160 characters (and ids with lone surrogates) are
 * cut and suffixed with `~~` and a SHA-256 of the id.
 *
 * A line that does not parse as a run of this thread (such as a torn last line after a crash)
 * is skipped, and the next append starts on a new line. Calls on one instance are serialised.
 * Several instances or processes may share one directory: appends to a thread's file hold that
 * thread's lock file (`<encoded threadId>.lock`), so {@link JsonlHistoryStore.compareAndSetRun}
 * checks and writes atomically, and `threads.json` is only changed while holding
 * `threads.json.lock` (read, change, atomic rename), so no instance overwrites another's entry.
 * Lock files are created with `O_EXCL` and taken as stale after 10 s.
 *
 * Every method rejects with `SwitchboardError` `history_error` (file system error as `cause`)
 * and with `aborted` when its `signal` aborts (checked before and after every file operation).
 */
export class JsonlHistoryStore implements HistoryStore {
  readonly #directory: string;
  readonly #cachedThreads: number;
  /** Thread files as read, least recently used first. */
  readonly #files = new Map<string, ThreadFile>();
  #queue: Promise<unknown> = Promise.resolve();
  /** The bytes of attached files, as files beside each thread's file. */
  readonly attachments: AttachmentStore;

  constructor(options: JsonlHistoryStoreOptions) {
    this.#directory = options.directory;
    this.#cachedThreads = options.cachedThreads ?? DEFAULT_CACHED_THREADS;
    this.attachments = new JsonlAttachmentStore(options.directory);
  }

  /** The thread's items, oldest run first; `[]` for an unknown thread. */
  async loadItems(threadId: string, options: { signal?: AbortSignal } = {}): Promise<Item[]> {
    return (await this.loadRuns(threadId, options)).flatMap((run) => run.items);
  }

  /**
   * The thread's run rows ordered by `createdAt` (ties: order of first save); `[]` for an unknown
   * thread. Malformed lines are skipped. Copies: changing them changes nothing stored.
   */
  async loadRuns(threadId: string, options: { signal?: AbortSignal } = {}): Promise<RunRecord[]> {
    const { signal } = options;
    return await this.#exclusive(signal, 'load the thread', async () => {
      const file = await this.#read(threadId, signal);
      return copiesInOrder(file.rows.values());
    });
  }

  /**
   * The rows written to the thread since `since` (a cursor this method returned, from any
   * instance on the directory), parsing only the bytes appended since. The cursor is the file's
   * identity and the byte offset read to; `complete` is true (and `runs` the whole thread) when
   * `since` is `undefined`, not such a cursor, or of a file since deleted, recreated or
   * rewritten.
   *
   * @throws SwitchboardError `history_error` when the file cannot be read; `aborted`.
   */
  async loadRunChanges(
    threadId: string,
    since: ThreadCursor | undefined,
    options: { signal?: AbortSignal } = {},
  ): Promise<RunChanges> {
    const { signal } = options;
    return await this.#exclusive(signal, 'load the thread', async () => {
      const file = await this.#read(threadId, signal);
      const cursor = threadCursor(file);
      const from =
        since === undefined
          ? undefined
          : await cursorOffset(this.#threadPath(threadId), file, since);
      if (from === undefined)
        return { runs: copiesInOrder(file.rows.values()), cursor, complete: true };
      const changed = [...file.rows.values()].filter((row) => row.line >= from);
      return { runs: copiesInOrder(changed), cursor, complete: false };
    });
  }

  /**
   * Appends the run's row to its thread's file (a delta line when its items extend the stored
   * row's, else a full line) and updates `threads.json`.
   *
   * @throws SwitchboardError `invalid_input` when an id is not a string, a time is not a finite
   *   number, or the run is not JSON-serialisable; `history_error` when a file cannot be written.
   */
  async saveRun(run: RunRecord, options: { signal?: AbortSignal } = {}): Promise<void> {
    checkRun(run);
    const { signal } = options;
    await this.#exclusive(signal, 'save the run', async () => {
      await mkdir(this.#directory, { recursive: true });
      await withLockFile(this.#lockPath(run.threadId), signal, async () => {
        const file = await this.#read(run.threadId, signal);
        await this.#append(file, run, file.rows.get(run.runId));
      });
      throwIfAborted(signal);
      await this.#updateIndex(signal, (index) => touchThread(index, run));
    });
  }

  /**
   * See {@link HistoryStore.compareAndSetRun}. Safe across processes sharing the directory:
   * the check (reading the thread's file) and the append happen while holding the thread's lock
   * file (`<encoded threadId>.lock`, created with `O_EXCL`).
   *
   * @throws SwitchboardError as {@link saveRun}; `history_error` when the lock stays taken for
   *   10 s (a lock file older than 10 s is taken as left by a dead process and removed).
   */
  async compareAndSetRun(
    run: RunRecord,
    expectedVersion: number,
    options: { signal?: AbortSignal } = {},
  ): Promise<CompareAndSetResult> {
    const version = expectedVersion + 1;
    checkRun(run);
    const { signal } = options;
    return await this.#exclusive(signal, 'save the run', async () => {
      await mkdir(this.#directory, { recursive: true });
      const result = await withLockFile(
        this.#lockPath(run.threadId),
        signal,
        async (): Promise<CompareAndSetResult> => {
          const file = await this.#read(run.threadId, signal);
          const stored = file.rows.get(run.runId);
          if ((stored?.run.version ?? 0) !== expectedVersion) {
            return { written: false, current: stored && structuredClone(stored.run) };
          }
          throwIfAborted(signal);
          await this.#append(file, { ...run, version }, stored);
          return { written: true, version };
        },
      );
      if (!result.written) return result;
      await this.#updateIndex(undefined, (index) => touchThread(index, run));
      return result;
    });
  }

  /** Threads, most recently updated first. */
  async listThreads(options: { signal?: AbortSignal } = {}): Promise<ThreadSummary[]> {
    const { signal } = options;
    return await this.#exclusive(signal, 'list threads', async () => {
      const index = await this.#readIndex(signal);
      return Object.entries(index.threads)
        .map(([threadId, { title, createdAt, updatedAt }]) => ({
          threadId,
          title,
          createdAt,
          updatedAt,
        }))
        .sort((a, b) => b.updatedAt - a.updatedAt);
    });
  }

  /** Sets a thread's title; it is kept from then on. Unknown ids are ignored. */
  async renameThread(
    threadId: string,
    title: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    const { signal } = options;
    await this.#exclusive(signal, 'rename the thread', async () => {
      await this.#updateIndex(signal, (index) => {
        const thread = index.threads[threadId];
        if (thread === undefined) return false;
        index.threads[threadId] = { ...thread, title, titleSource: 'user' };
        return true;
      });
    });
  }

  /** Stores the thread's selected branch in its `threads.json` entry. Unknown ids are ignored. */
  async selectBranch(
    threadId: string,
    selection: BranchSelection,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    const { signal } = options;
    const { leafRunId, selectedAt } = selection;
    await this.#exclusive(signal, 'select the branch', async () => {
      await this.#updateIndex(signal, (index) => {
        const thread = index.threads[threadId];
        if (thread === undefined) return false;
        index.threads[threadId] = { ...thread, branch: { leafRunId, selectedAt } };
        return true;
      });
    });
  }

  /** The thread's selected branch, from `threads.json`. */
  async loadBranchSelection(
    threadId: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<BranchSelection | undefined> {
    const { signal } = options;
    return await this.#exclusive(signal, 'load the selected branch', async () => {
      const index = await this.#readIndex(signal);
      return index.threads[threadId]?.branch;
    });
  }

  /**
   * Removes the thread's file, then its `threads.json` entry (a crash in between leaves an empty
   * thread listed, never runs that reappear). Unknown ids are ignored.
   */
  async deleteThread(threadId: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    const { signal } = options;
    await this.#exclusive(signal, 'delete the thread', async () => {
      await mkdir(this.#directory, { recursive: true });
      await withLockFile(this.#lockPath(threadId), signal, async () => {
        this.#files.delete(threadId);
        await rm(this.#threadPath(threadId), { force: true });
        await rm(threadAttachmentDirectory(this.#directory, threadId), {
          recursive: true,
          force: true,
        });
      });
      throwIfAborted(signal);
      await this.#updateIndex(signal, (index) => {
        if (!Object.hasOwn(index.threads, threadId)) return false;
        delete index.threads[threadId];
        return true;
      });
    });
  }

  #threadPath(threadId: string): string {
    return join(this.#directory, `${encodeThreadId(threadId)}.jsonl`);
  }

  #lockPath(threadId: string): string {
    return join(this.#directory, `${encodeThreadId(threadId)}.lock`);
  }

  /**
   * The thread's file as read now: from where this instance last read it when it is still the
   * same file, else whole; kept as the most recently used thread.
   */
  async #read(threadId: string, signal: AbortSignal | undefined): Promise<ThreadFile> {
    throwIfAborted(signal);
    const known = this.#files.get(threadId);
    this.#files.delete(threadId);
    const file = await readThreadFile(this.#threadPath(threadId), threadId, known);
    this.#remember(file);
    throwIfAborted(signal);
    return file;
  }

  /** Appends the line that stores `run` over `stored` (its row as `file` holds it). */
  async #append(file: ThreadFile, run: RunRecord, stored: StoredRow | undefined): Promise<void> {
    const line = runLine(run, stored);
    try {
      await appendToThreadFile(this.#threadPath(run.threadId), file, line, () =>
        runLine(run, undefined),
      );
    } catch (error) {
      // What reached the file is unknown: read it whole next time.
      this.#files.delete(file.threadId);
      throw error;
    }
    this.#remember(file);
  }

  /** Keeps `file` as the most recently used thread, dropping the least recently used ones. */
  #remember(file: ThreadFile): void {
    this.#files.delete(file.threadId);
    if (file.identity === undefined || this.#cachedThreads <= 0) return;
    this.#files.set(file.threadId, file);
    for (const threadId of this.#files.keys()) {
      if (this.#files.size <= this.#cachedThreads) break;
      this.#files.delete(threadId);
    }
  }

  /**
   * Read-modify-write of `threads.json` under its lock file (`threads.json.lock`), so that two
   * instances or processes never overwrite each other's entries. `change` returns false when it
   * changed nothing (no write).
   */
  async #updateIndex(
    signal: AbortSignal | undefined,
    change: (index: ThreadIndex) => boolean | void,
  ): Promise<void> {
    await mkdir(this.#directory, { recursive: true });
    await withLockFile(join(this.#directory, `${INDEX_FILE}.lock`), signal, async () => {
      const index = await this.#readIndex(signal);
      if (change(index) === false) return;
      await this.#writeIndex(index, signal);
    });
  }

  async #readIndex(signal: AbortSignal | undefined): Promise<ThreadIndex> {
    const text = await readTextFile(join(this.#directory, INDEX_FILE), signal);
    throwIfAborted(signal);
    if (text === undefined) return { version: 1, threads: emptyRecord() };
    let index: unknown;
    try {
      index = JSON.parse(text);
    } catch (error) {
      throw new SwitchboardError('history_error', `${INDEX_FILE} is not valid JSON.`, {
        cause: error,
      });
    }
    if (!isThreadIndex(index)) {
      throw new SwitchboardError('history_error', `${INDEX_FILE} has an unknown shape or version.`);
    }
    // A null-prototype record, so that thread ids such as `__proto__` are plain keys.
    return { version: 1, threads: Object.assign(emptyRecord(), index.threads) };
  }

  /** Writes `threads.json` atomically: temporary file, fsync, rename over the old one. */
  async #writeIndex(index: ThreadIndex, signal: AbortSignal | undefined): Promise<void> {
    throwIfAborted(signal);
    await mkdir(this.#directory, { recursive: true });
    const target = join(this.#directory, INDEX_FILE);
    const temporary = `${target}.${randomUUID()}.tmp`;
    try {
      const handle = await open(temporary, 'w');
      try {
        await handle.writeFile(`${JSON.stringify(index)}\n`, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, target);
    } catch (error) {
      await rm(temporary, { force: true }).catch(() => undefined);
      throw error;
    }
  }

  /** Runs `task` after every earlier call of this instance has finished. */
  #exclusive<Result>(
    signal: AbortSignal | undefined,
    what: string,
    task: () => Promise<Result>,
  ): Promise<Result> {
    const result = this.#queue.then(async () => {
      throwIfAborted(signal);
      try {
        const value = await task();
        throwIfAborted(signal);
        return value;
      } catch (error) {
        throw toHistoryError(error, what, signal);
      }
    });
    this.#queue = result.catch(() => undefined);
    return result;
  }
}

/** Adds or updates the thread entry of `run` (times, automatic title). */
function touchThread(index: ThreadIndex, run: RunRecord): void {
  index.threads[run.threadId] = threadEntryWithRun<ThreadEntry>(
    index.threads[run.threadId],
    run,
    {},
  );
}

/** The file's text, or `undefined` when it does not exist. */
async function readTextFile(
  path: string,
  signal: AbortSignal | undefined,
): Promise<string | undefined> {
  try {
    return await readFile(path, { encoding: 'utf8', ...(signal === undefined ? {} : { signal }) });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Copies of the rows, ordered by `createdAt` (ties: order of first save). */
function copiesInOrder(rows: Iterable<StoredRow>): RunRecord[] {
  return [...rows]
    .map((row) => row.run)
    .sort((a, b) => a.createdAt - b.createdAt)
    .map((run) => structuredClone(run));
}

function emptyRecord(): Record<string, ThreadEntry> {
  return Object.create(null) as Record<string, ThreadEntry>;
}

function isThreadIndex(value: unknown): value is ThreadIndex {
  if (typeof value !== 'object' || value === null) return false;
  const index = value as Partial<ThreadIndex>;
  return index.version === 1 && typeof index.threads === 'object' && index.threads !== null;
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new SwitchboardError('aborted', 'The history operation was aborted.', {
      cause: signal.reason,
    });
  }
}

function toHistoryError(
  error: unknown,
  what: string,
  signal: AbortSignal | undefined,
): SwitchboardError {
  if (error instanceof SwitchboardError) return error;
  if (signal?.aborted) {
    return new SwitchboardError('aborted', 'The history operation was aborted.', {
      cause: signal.reason,
    });
  }
  return new SwitchboardError('history_error', `Could not ${what}: ${messageOf(error)}`, {
    cause: error,
  });
}
