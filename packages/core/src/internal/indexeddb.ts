import { wrap, type DBSchema, type IDBPDatabase, type IDBPTransaction, type StoreNames } from 'idb';
import { SwitchboardError } from '../errors/switchboard-error.ts';

/** The `versionchange` transaction an upgrade runs in, over every store of `Schema`. */
export type VersionChangeTransaction<Schema extends DBSchema> = IDBPTransaction<
  Schema,
  StoreNames<Schema>[],
  'versionchange'
>;

/** Options of {@link IndexedDbConnection}. */
export interface IndexedDbConnectionOptions<Schema extends DBSchema> {
  /** The IndexedDB factory; `undefined` means `globalThis.indexedDB`. */
  factory: IDBFactory | undefined;
  /** Name of the IndexedDB database. */
  databaseName: string;
  /** The schema version this code writes. */
  version: number;
  /**
   * Creates or migrates the schema from `oldVersion` to `version`, inside the `versionchange`
   * transaction (use it to migrate rows).
   */
  upgrade: (
    database: IDBPDatabase<Schema>,
    oldVersion: number,
    transaction: VersionChangeTransaction<Schema>,
  ) => void;
  /** What the caller stores, for `aborted` messages: `'history'` gives "The history operation…". */
  subject: string;
  /** What to use instead when IndexedDB is missing, such as `'MemorySchemaCache'`. */
  alternative: string;
  /** Whether the global `IDBKeyRange` must exist too (the caller builds key ranges). */
  requiresKeyRange: boolean;
}

/**
 * One lazily opened IndexedDB database (via `idb`) and the transactions run on it: the plumbing
 * the IndexedDB stores share.
 *
 * The database opens on first use (single flight; a failed open is retried by the next call) and
 * stays open until {@link close}. When another connection asks to upgrade or delete it
 * (`versionchange`) this one closes so as not to block it, and the next call reopens it; the same
 * happens when the browser closes the connection. When this connection's own upgrade is blocked,
 * calls wait until the old connection closes or their `signal` aborts.
 *
 * Failures reject with `SwitchboardError` `history_error` (the IndexedDB error as `cause`):
 * IndexedDB unavailable, the open failing (a newer version on disk, for one), or a transaction
 * failing. A call whose `signal` aborts rejects with `aborted` and aborts its transaction.
 */
export class IndexedDbConnection<Schema extends DBSchema> {
  readonly #options: IndexedDbConnectionOptions<Schema>;
  #database: Promise<IDBPDatabase<Schema>> | undefined;

  constructor(options: IndexedDbConnectionOptions<Schema>) {
    this.#options = options;
  }

  /**
   * Runs `body` in one transaction on `storeNames` and resolves with its result once the
   * transaction has committed. `what` completes the failure message "Could not `what`: …".
   * When `body` fails or `signal` aborts, the transaction is aborted: nothing it wrote stays.
   */
  async transact<
    const Names extends ArrayLike<StoreNames<Schema>>,
    Mode extends IDBTransactionMode,
    Result,
  >(
    storeNames: Names,
    mode: Mode,
    signal: AbortSignal | undefined,
    what: string,
    body: (tx: IDBPTransaction<Schema, Names, Mode>) => Promise<Result>,
  ): Promise<Result> {
    this.#throwIfAborted(signal);
    const database = await this.#abortable(this.#open(), signal);
    this.#throwIfAborted(signal);
    let tx: IDBPTransaction<Schema, Names, Mode>;
    try {
      tx = database.transaction(storeNames, mode);
    } catch (error) {
      throw this.#toError(error, what, signal);
    }
    const done = tx.done;
    done.catch(() => undefined);
    const abortTransaction = () => {
      try {
        tx.abort();
      } catch {
        // Already committed or aborted.
      }
    };
    signal?.addEventListener('abort', abortTransaction, { once: true });
    try {
      let result: Result;
      try {
        result = await body(tx);
      } catch (error) {
        // A synchronous failure (such as DataCloneError) leaves the transaction active: abort it
        // so that nothing queued before it commits.
        abortTransaction();
        throw error;
      }
      await done;
      this.#throwIfAborted(signal);
      return result;
    } catch (error) {
      throw this.#toError(error, what, signal);
    } finally {
      signal?.removeEventListener('abort', abortTransaction);
    }
  }

  /**
   * Closes the database connection (once pending transactions finish). Calls made afterwards
   * open it again. Idempotent.
   */
  close(): void {
    const database = this.#database;
    this.#database = undefined;
    void database?.then(
      (connection) => connection.close(),
      () => undefined,
    );
  }

  /** The open database, opening it on first use (single flight; a failure is retried later). */
  #open(): Promise<IDBPDatabase<Schema>> {
    if (this.#database === undefined) {
      const forget = () => {
        if (this.#database === database) this.#database = undefined;
      };
      const database = openDatabase(this.#options, forget);
      database.catch(forget);
      this.#database = database;
    }
    return this.#database;
  }

  #throwIfAborted(signal: AbortSignal | undefined): void {
    if (signal?.aborted) throw this.#abortedError(signal);
  }

  #abortedError(signal: AbortSignal): SwitchboardError {
    return new SwitchboardError('aborted', `The ${this.#options.subject} operation was aborted.`, {
      cause: signal.reason,
    });
  }

  /** `promise`, or a rejection with `aborted` as soon as `signal` aborts. */
  #abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    if (signal === undefined) return promise;
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(this.#abortedError(signal));
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  #toError(error: unknown, what: string, signal: AbortSignal | undefined): SwitchboardError {
    if (error instanceof SwitchboardError) return error;
    if (signal?.aborted) return this.#abortedError(signal);
    return new SwitchboardError('history_error', `Could not ${what}: ${describeError(error)}`, {
      cause: error,
    });
  }
}

/** Opens (and creates or upgrades) the database; `onGone` runs when the connection closes. */
async function openDatabase<Schema extends DBSchema>(
  options: IndexedDbConnectionOptions<Schema>,
  onGone: () => void,
): Promise<IDBPDatabase<Schema>> {
  const { databaseName, version, upgrade } = options;
  const indexedDB = options.factory ?? (globalThis.indexedDB as IDBFactory | undefined);
  if (
    indexedDB === undefined ||
    typeof globalThis.IDBRequest === 'undefined' ||
    (options.requiresKeyRange && typeof globalThis.IDBKeyRange === 'undefined')
  ) {
    throw new SwitchboardError(
      'history_error',
      `IndexedDB is not available here (under Node, import "fake-indexeddb/auto" or use ${options.alternative}).`,
    );
  }
  let database: IDBPDatabase<Schema>;
  try {
    const request = indexedDB.open(databaseName, version);
    request.addEventListener('upgradeneeded', (event) => {
      const transaction = request.transaction;
      if (transaction === null) return;
      upgrade(
        wrap(request.result) as unknown as IDBPDatabase<Schema>,
        event.oldVersion,
        wrap(transaction) as unknown as VersionChangeTransaction<Schema>,
      );
    });
    database = (await wrap(request)) as unknown as IDBPDatabase<Schema>;
  } catch (error) {
    throw new SwitchboardError(
      'history_error',
      `Could not open the IndexedDB database "${databaseName}": ${describeError(error)}`,
      { cause: error },
    );
  }
  // Another tab wants to upgrade or delete the database: step aside instead of blocking it.
  database.addEventListener('versionchange', () => {
    database.close();
    onGone();
  });
  // The browser closed the connection (storage cleared, disk error).
  database.addEventListener('close', onGone);
  return database;
}

function describeError(error: unknown): string {
  if (error instanceof Error || error instanceof DOMException) {
    return `${error.name}: ${error.message}`;
  }
  return String(error);
}
