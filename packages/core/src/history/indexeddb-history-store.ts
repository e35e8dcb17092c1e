import type { DBSchema, IDBPDatabase, IDBPTransaction } from 'idb';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import { IndexedDbConnection, type VersionChangeTransaction } from '../internal/indexeddb.ts';
import type { Item } from '../vocabulary/items.ts';
import {
  threadEntryWithRun,
  type BranchSelection,
  type CompareAndSetResult,
  type HistoryStore,
  type RunChanges,
  type RunRecord,
  type ThreadCursor,
  type ThreadSummary,
} from './history-store.ts';
import { changeAfter, threadCursor } from './thread-cursor.ts';
import type { IndexedDbFactory } from '../internal/dom-globals.ts';
import type { AttachmentStore } from './attachment-store.ts';
import {
  IndexedDbAttachmentStore,
  threadAttachmentRange,
  type AttachmentRow,
} from './indexeddb-attachment-store.ts';

/** Options of {@link IndexedDbHistoryStore}. */
export interface IndexedDbHistoryStoreOptions {
  /** Name of the IndexedDB database. Default `'switchboard'`. */
  databaseName?: string;
  /**
   * The IndexedDB factory. Default `globalThis.indexedDB`. Meant for tests (a fresh
   * `new IDBFactory()` from `fake-indexeddb` per test). `idb` checks values with `instanceof`
   * against the global `IDBRequest`, `IDBObjectStore`, … classes and ranges are built with the
   * global `IDBKeyRange`, so the factory must come from the same implementation as those globals
   * (under Node: `import 'fake-indexeddb/auto'`).
   */
  indexedDB?: IndexedDbFactory;
}

/** The schema version this code writes. Bump it and add a step to `upgradeDatabase` to migrate. */
const DATABASE_VERSION = 3;
const DEFAULT_DATABASE_NAME = 'switchboard';

/** A thread's row in the `threads` store: its summary and where its title came from. */
interface ThreadRow extends ThreadSummary {
  /** `auto`: taken from the first user message; `user`: set by `renameThread`, kept from then on. */
  titleSource: 'auto' | 'user';
  /** The selected branch (`selectBranch`); absent until the user switches branches. */
  branch?: BranchSelection;
  /**
   * This life of the thread (version 3): a thread deleted and written again gets a new one, so
   * a cursor of its former life never continues. Absent on threads not written since version 3.
   */
  generation?: string;
  /** The change number of the thread's last run write (version 3). */
  changes?: number;
}

/** A row of the `runChanges` store: the change number of a run row's last write. */
interface RunChangeRow {
  runId: string;
  threadId: string;
  change: number;
}

interface HistoryDatabase extends DBSchema {
  threads: { key: string; value: ThreadRow; indexes: { updatedAt: number } };
  runs: { key: string; value: RunRecord; indexes: { threadId_createdAt: [string, number] } };
  attachments: { key: [string, string]; value: AttachmentRow };
  runChanges: {
    key: string;
    value: RunChangeRow;
    indexes: { threadId_change: [string, number] };
  };
}

/**
 * A {@link HistoryStore} in IndexedDB (via `idb`), for browsers: threads survive page reloads.
 *
 * Database `databaseName` (schema version 2) holds three object stores:
 * - `threads`, keyed by `threadId`: title, `titleSource`, `createdAt`, `updatedAt` (ms epoch),
 *   the selected branch (`branch`, a {@link BranchSelection}), indexed by `updatedAt`;
 * - `runs`, keyed by `runId`: one {@link RunRecord} per row, stored as it is (structured clone,
 *   `state` included), indexed by `[threadId, createdAt]`;
 * - `attachments` (version 2), keyed by `[threadId, attachmentId]`: the bytes of attached files
 *   as `Blob`s ({@link attachments});
 * - `runChanges` (version 3), keyed by `runId`: the change number of each run row's last write,
 *   indexed by `[threadId, change]`, so {@link loadRunChanges} reads only the rows written since
 *   a cursor (`<thread generation>:<change>`; the thread row keeps both).
 *
 * `saveRun` writes that one run row and its thread's row in one transaction, never the rest of
 * the thread, so appending a run costs O(its items). `compareAndSetRun` reads, checks and writes
 * in one transaction, so two tabs claiming one run cannot both succeed. A thread's title is its first user message
 * until `renameThread` sets one.
 *
 * The database opens lazily on first use and stays open until {@link close}. When another tab
 * asks to upgrade the schema (`versionchange`), this store closes its connection so the upgrade
 * is not blocked; the next call reopens it (and fails with `history_error` if the database is now
 * at a newer version than this code knows). When this store's own upgrade is blocked by an old
 * connection elsewhere, calls wait until that connection closes or their `signal` aborts.
 *
 * Every method rejects with `SwitchboardError` `history_error` (with the IndexedDB error as
 * `cause`) when IndexedDB is unavailable or a transaction fails, and with `aborted` when its
 * `signal` aborts. A write whose transaction was aborted wrote nothing; a write that committed
 * just before the abort was noticed stays committed.
 */
export class IndexedDbHistoryStore implements HistoryStore {
  /** The origin's tabs and workers share both this database and their Web Locks. */
  readonly sharedWithinLockScope: boolean = true;
  readonly #connection: IndexedDbConnection<HistoryDatabase>;
  /** The bytes of attached files, as Blobs in the `attachments` object store. */
  readonly attachments: AttachmentStore;

  constructor(options: IndexedDbHistoryStoreOptions = {}) {
    this.#connection = new IndexedDbConnection({
      factory: options.indexedDB,
      databaseName: options.databaseName ?? DEFAULT_DATABASE_NAME,
      version: DATABASE_VERSION,
      upgrade: upgradeDatabase,
      subject: 'history',
      alternative: 'another HistoryStore',
      requiresKeyRange: true,
    });
    this.attachments = new IndexedDbAttachmentStore({
      get: (key, signal) =>
        this.#connection.transact(
          ['attachments'],
          'readonly',
          signal,
          'read the attachment',
          (tx) => tx.objectStore('attachments').get(key),
        ),
      put: (row, signal) =>
        this.#connection.transact(
          ['attachments'],
          'readwrite',
          signal,
          'store the attachment',
          async (tx) => {
            await tx.objectStore('attachments').put(row);
          },
        ),
    });
  }

  /** The thread's items, oldest run first; `[]` for an unknown thread. */
  async loadItems(threadId: string, options: { signal?: AbortSignal } = {}): Promise<Item[]> {
    return (await this.loadRuns(threadId, options)).flatMap((run) => run.items);
  }

  /** The thread's run rows ordered by `createdAt` (then `runId`); `[]` for an unknown thread. */
  async loadRuns(threadId: string, options: { signal?: AbortSignal } = {}): Promise<RunRecord[]> {
    return await this.#connection.transact(
      ['runs'],
      'readonly',
      options.signal,
      'load the thread',
      (tx) => tx.objectStore('runs').index('threadId_createdAt').getAll(threadRange(threadId)),
    );
  }

  /**
   * See {@link HistoryStore.loadRunChanges}: one `readonly` transaction reads the thread row
   * (its generation and change number) and, for a cursor of the same generation, the rows
   * whose change is above it through the `runChanges` index: O(changed rows).
   */
  async loadRunChanges(
    threadId: string,
    since: ThreadCursor | undefined,
    options: { signal?: AbortSignal } = {},
  ): Promise<RunChanges> {
    return await this.#connection.transact(
      ['threads', 'runs', 'runChanges'],
      'readonly',
      options.signal,
      'load the thread',
      async (tx): Promise<RunChanges> => {
        const thread = await tx.objectStore('threads').get(threadId);
        const runs = tx.objectStore('runs');
        if (thread?.generation === undefined) {
          // Unknown, or not written since version 3: the whole thread, and no cursor to continue.
          const all = await runs.index('threadId_createdAt').getAll(threadRange(threadId));
          return { runs: all, cursor: ':0', complete: true };
        }
        const cursor = threadCursor(thread.generation, thread.changes ?? 0);
        const after = changeAfter(since, thread.generation);
        if (after === undefined) {
          const all = await runs.index('threadId_createdAt').getAll(threadRange(threadId));
          return { runs: all, cursor, complete: true };
        }
        const changed = await tx
          .objectStore('runChanges')
          .index('threadId_change')
          .getAll(IDBKeyRange.bound([threadId, after], [threadId, Infinity], true));
        const rows = await Promise.all(changed.map((entry) => runs.get(entry.runId)));
        const found = rows.filter((row): row is RunRecord => row !== undefined);
        found.sort((a, b) => a.createdAt - b.createdAt || (a.runId < b.runId ? -1 : 1));
        return { runs: found, cursor, complete: false };
      },
    );
  }

  /**
   * Inserts or replaces the row of `run.runId` and updates its thread's row (created when new),
   * in one transaction: exactly one `put` per store.
   *
   * @throws SwitchboardError `invalid_input` when an id is not a string or a time is not a
   *   finite number (IndexedDB would silently leave such a row out of the thread's index);
   *   `history_error` when the run is not structured-cloneable or the transaction fails.
   */
  async saveRun(run: RunRecord, options: { signal?: AbortSignal } = {}): Promise<void> {
    assertRunRecord(run);
    await this.#connection.transact(
      ['threads', 'runs', 'runChanges'],
      'readwrite',
      options.signal,
      'save the run',
      (tx) => putRun(tx, run),
    );
  }

  /**
   * See {@link HistoryStore.compareAndSetRun}: reads the row, compares its version and writes
   * the run and its thread's row in one `readwrite` transaction, so two tabs (two connections)
   * claiming the same row cannot both succeed.
   *
   * @throws SwitchboardError as {@link saveRun}.
   */
  async compareAndSetRun(
    run: RunRecord,
    expectedVersion: number,
    options: { signal?: AbortSignal } = {},
  ): Promise<CompareAndSetResult> {
    assertRunRecord(run);
    return await this.#connection.transact(
      ['threads', 'runs', 'runChanges'],
      'readwrite',
      options.signal,
      'save the run',
      async (tx): Promise<CompareAndSetResult> => {
        const stored = await tx.objectStore('runs').get(run.runId);
        if ((stored?.version ?? 0) !== expectedVersion) return { written: false, current: stored };
        const version = expectedVersion + 1;
        await putRun(tx, { ...run, version });
        return { written: true, version };
      },
    );
  }

  /** Threads, most recently updated first. */
  async listThreads(options: { signal?: AbortSignal } = {}): Promise<ThreadSummary[]> {
    const rows = await this.#connection.transact(
      ['threads'],
      'readonly',
      options.signal,
      'list threads',
      (tx) => tx.objectStore('threads').index('updatedAt').getAll(),
    );
    return rows.reverse().map(({ threadId, title, createdAt, updatedAt }) => ({
      threadId,
      title,
      createdAt,
      updatedAt,
    }));
  }

  /** Sets a thread's title; it is kept from then on. Unknown ids are ignored. */
  async renameThread(
    threadId: string,
    title: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    await this.#connection.transact(
      ['threads'],
      'readwrite',
      options.signal,
      'rename the thread',
      async (tx) => {
        const threads = tx.objectStore('threads');
        const thread = await threads.get(threadId);
        if (thread === undefined) return;
        await threads.put({ ...thread, title, titleSource: 'user' });
      },
    );
  }

  /** Stores the thread's selected branch on its thread row. Unknown ids are ignored. */
  async selectBranch(
    threadId: string,
    selection: BranchSelection,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    await this.#connection.transact(
      ['threads'],
      'readwrite',
      options.signal,
      'select the branch',
      async (tx) => {
        const threads = tx.objectStore('threads');
        const thread = await threads.get(threadId);
        if (thread === undefined) return;
        const { leafRunId, selectedAt } = selection;
        await threads.put({ ...thread, branch: { leafRunId, selectedAt } });
      },
    );
  }

  /** The thread's selected branch, from its thread row. */
  async loadBranchSelection(
    threadId: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<BranchSelection | undefined> {
    const thread = await this.#connection.transact(
      ['threads'],
      'readonly',
      options.signal,
      'load the selected branch',
      (tx) => tx.objectStore('threads').get(threadId),
    );
    return thread?.branch;
  }

  /** Removes a thread, its runs and its attachments in one transaction. Unknown ids are ignored. */
  async deleteThread(threadId: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.#connection.transact(
      ['threads', 'runs', 'attachments', 'runChanges'],
      'readwrite',
      options.signal,
      'delete the thread',
      async (tx) => {
        const runs = tx.objectStore('runs');
        const runIds = await runs.index('threadId_createdAt').getAllKeys(threadRange(threadId));
        const changes = tx.objectStore('runChanges');
        await Promise.all([
          tx.objectStore('threads').delete(threadId),
          ...runIds.map((runId) => runs.delete(runId)),
          ...runIds.map((runId) => changes.delete(runId)),
          tx.objectStore('attachments').delete(threadAttachmentRange(threadId)),
        ]);
      },
    );
  }

  /**
   * Closes the database connection (once pending transactions finish). Calls made afterwards
   * open it again. Idempotent.
   */
  close(): void {
    this.#connection.close();
  }
}

/**
 * Creates or migrates the schema from `oldVersion` to {@link DATABASE_VERSION}, one step per
 * version, inside the `versionchange` transaction (use it to migrate rows).
 */
function upgradeDatabase(
  database: IDBPDatabase<HistoryDatabase>,
  oldVersion: number,
  _transaction: VersionChangeTransaction<HistoryDatabase>,
): void {
  if (oldVersion < 1) {
    const threads = database.createObjectStore('threads', { keyPath: 'threadId' });
    threads.createIndex('updatedAt', 'updatedAt');
    const runs = database.createObjectStore('runs', { keyPath: 'runId' });
    runs.createIndex('threadId_createdAt', ['threadId', 'createdAt']);
  }
  if (oldVersion < 2) {
    database.createObjectStore('attachments', { keyPath: ['threadId', 'attachmentId'] });
  }
  if (oldVersion < 3) {
    // Rows written before have no entry: a thread's first read after the upgrade is complete,
    // and its next write gives it a generation.
    const changes = database.createObjectStore('runChanges', { keyPath: 'runId' });
    changes.createIndex('threadId_change', ['threadId', 'change']);
  }
  // Version 4: `if (oldVersion < 4) { … }`, reading and rewriting rows through `_transaction`.
}

/**
 * Puts the run row and updates (or creates) its thread's row, inside `tx`, bumping the
 * thread's change number and noting it as the row's (`runChanges`).
 */
async function putRun(
  tx: IDBPTransaction<HistoryDatabase, ('threads' | 'runs' | 'runChanges')[], 'readwrite'>,
  run: RunRecord,
): Promise<void> {
  const threads = tx.objectStore('threads');
  const thread = threadEntryWithRun<ThreadRow>(await threads.get(run.threadId), run, {
    threadId: run.threadId,
  });
  thread.generation ??= crypto.randomUUID();
  thread.changes = (thread.changes ?? 0) + 1;
  const change: RunChangeRow = { runId: run.runId, threadId: run.threadId, change: thread.changes };
  await Promise.all([
    tx.objectStore('runs').put(run),
    threads.put(thread),
    tx.objectStore('runChanges').put(change),
  ]);
}

/** Every `[threadId, createdAt]` index key of one thread. */
function threadRange(threadId: string): IDBKeyRange {
  return IDBKeyRange.bound([threadId, -Infinity], [threadId, Infinity]);
}

function assertRunRecord(run: RunRecord): void {
  if (typeof run.runId !== 'string' || typeof run.threadId !== 'string') {
    throw new SwitchboardError('invalid_input', 'A run needs string runId and threadId.');
  }
  if (!Number.isFinite(run.createdAt) || !Number.isFinite(run.updatedAt)) {
    throw new SwitchboardError(
      'invalid_input',
      `Run ${run.runId}: createdAt and updatedAt must be finite numbers (ms since the epoch).`,
    );
  }
}
