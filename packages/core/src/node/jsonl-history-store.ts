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
import { encodeThreadId } from './thread-file-name.ts';

/** Options of {@link JsonlHistoryStore}. */
export interface JsonlHistoryStoreOptions {
  /** The directory for the files; created (with its parents) on the first write. */
  directory: string;
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
/**
 * A {@link HistoryStore} in files, for Node (`@switchboard/core/node`):
 *
 * - `<encoded threadId>.jsonl`: one JSON line per saved run row. Saving a run appends one line,
 *   so `saveRun` writes O(its items); saving the same `runId` again appends a newer line and
 *   readers keep the last line per `runId` (at the place of its first line).
 *   `compareAndSetRun` also reads the thread's file to check the stored version (O(thread)).
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
  #queue: Promise<unknown> = Promise.resolve();
  /** The bytes of attached files, as files beside each thread's file. */
  readonly attachments: AttachmentStore;

  constructor(options: JsonlHistoryStoreOptions) {
    this.#directory = options.directory;
    this.attachments = new JsonlAttachmentStore(options.directory);
  }

  /** The thread's items, oldest run first; `[]` for an unknown thread. */
  async loadItems(threadId: string, options: { signal?: AbortSignal } = {}): Promise<Item[]> {
    return (await this.loadRuns(threadId, options)).flatMap((run) => run.items);
  }

  /**
   * The thread's run rows ordered by `createdAt` (ties: order of first save); `[]` for an unknown
   * thread. Malformed lines are skipped.
   */
  async loadRuns(threadId: string, options: { signal?: AbortSignal } = {}): Promise<RunRecord[]> {
    const { signal } = options;
    return await this.#exclusive(signal, 'load the thread', async () => {
      const runs = await this.#readRuns(threadId, signal);
      return [...runs.values()].sort((a, b) => a.createdAt - b.createdAt);
    });
  }

  /**
   * See {@link HistoryStore.loadRunChanges}. For now always the whole thread
   * (`complete: true`, as `loadRuns`): an incremental reading of the file is to come.
   */
  async loadRunChanges(
    threadId: string,
    _since: ThreadCursor | undefined,
    options: { signal?: AbortSignal } = {},
  ): Promise<RunChanges> {
    return { runs: await this.loadRuns(threadId, options), cursor: 'jsonl', complete: true };
  }

  /**
   * Appends the run's row to its thread's file and updates `threads.json`.
   *
   * @throws SwitchboardError `invalid_input` when an id is not a string, a time is not a finite
   *   number, or the run is not JSON-serialisable; `history_error` when a file cannot be written.
   */
  async saveRun(run: RunRecord, options: { signal?: AbortSignal } = {}): Promise<void> {
    const line = serialiseRun(run);
    const { signal } = options;
    await this.#exclusive(signal, 'save the run', async () => {
      await mkdir(this.#directory, { recursive: true });
      await withLockFile(this.#lockPath(run.threadId), signal, () =>
        appendLine(this.#threadPath(run.threadId), line),
      );
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
    const line = serialiseRun({ ...run, version });
    const { signal } = options;
    return await this.#exclusive(signal, 'save the run', async () => {
      await mkdir(this.#directory, { recursive: true });
      const result = await withLockFile(
        this.#lockPath(run.threadId),
        signal,
        async (): Promise<CompareAndSetResult> => {
          const runs = await this.#readRuns(run.threadId, signal);
          const stored = runs.get(run.runId);
          if ((stored?.version ?? 0) !== expectedVersion)
            return { written: false, current: stored };
          throwIfAborted(signal);
          await appendLine(this.#threadPath(run.threadId), line);
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

  /** The thread's rows by `runId` (last line per run wins), from its file. */
  async #readRuns(
    threadId: string,
    signal: AbortSignal | undefined,
  ): Promise<Map<string, RunRecord>> {
    const text = await readTextFile(this.#threadPath(threadId), signal);
    throwIfAborted(signal);
    const runs = new Map<string, RunRecord>();
    for (const line of (text ?? '').split('\n')) {
      const run = parseRunLine(line, threadId);
      if (run !== undefined) runs.set(run.runId, run);
    }
    return runs;
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

/**
 * Appends `line` (which ends with a newline). When the file does not end with a newline (a torn
 * write), a newline goes first so the torn line stays alone and is skipped by readers.
 */
async function appendLine(path: string, line: string): Promise<void> {
  const handle = await open(path, 'a+');
  try {
    const { size } = await handle.stat();
    let prefix = '';
    if (size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) prefix = '\n';
    }
    await handle.appendFile(prefix + line, 'utf8');
  } finally {
    await handle.close();
  }
}

function serialiseRun(run: RunRecord): string {
  if (typeof run.runId !== 'string' || typeof run.threadId !== 'string') {
    throw new SwitchboardError('invalid_input', 'A run needs string runId and threadId.');
  }
  if (!Number.isFinite(run.createdAt) || !Number.isFinite(run.updatedAt)) {
    throw new SwitchboardError(
      'invalid_input',
      `Run ${run.runId}: createdAt and updatedAt must be finite numbers (ms since the epoch).`,
    );
  }
  try {
    return `${JSON.stringify(run)}\n`;
  } catch (error) {
    throw new SwitchboardError('invalid_input', `Run ${run.runId} is not JSON-serialisable.`, {
      cause: error,
    });
  }
}

/** The run on `line`, or `undefined` for a blank, malformed or foreign line. */
function parseRunLine(line: string, threadId: string): RunRecord | undefined {
  if (line.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const run = value as Partial<RunRecord>;
  if (
    typeof run.runId !== 'string' ||
    run.threadId !== threadId ||
    typeof run.createdAt !== 'number' ||
    typeof run.updatedAt !== 'number' ||
    typeof run.status !== 'string' ||
    !Array.isArray(run.items)
  ) {
    return undefined;
  }
  return value as RunRecord;
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
