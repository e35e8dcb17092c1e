import { wrap, type DBSchema, type IDBPDatabase, type IDBPTransaction } from 'idb';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import {
  isSchemaCacheEntry,
  pickSchemaCacheEntry,
  type SchemaCache,
  type SchemaCacheCallOptions,
  type SchemaCacheEntry,
} from './schema-cache.ts';

/** Options of {@link IndexedDbSchemaCache}. */
export interface IndexedDbSchemaCacheOptions {
  /** Name of the IndexedDB database. Default `'switchboard-schema-cache'`. */
  databaseName?: string;
  /**
   * The IndexedDB factory. Default `globalThis.indexedDB`. Meant for tests (a fresh
   * `new IDBFactory()` from `fake-indexeddb`); it must come from the same implementation as the
   * global `IDBRequest`, `IDBObjectStore`, … classes, which `idb` checks with `instanceof`.
   */
  indexedDB?: IDBFactory;
  /** The clock, in ms since the epoch, that expiry is judged by. Default `Date.now`. */
  now?: () => number;
}

/** The schema version this code writes; add a step to `upgradeDatabase` when bumping it. */
const DATABASE_VERSION = 1;
const DEFAULT_DATABASE_NAME = 'switchboard-schema-cache';

interface SchemaCacheDatabase extends DBSchema {
  /** Out-of-line keys: the `schemaCacheKey` strings. */
  entries: { key: string; value: SchemaCacheEntry };
}

type EntriesTransaction<Mode extends IDBTransactionMode> = IDBPTransaction<
  SchemaCacheDatabase,
  ['entries'],
  Mode
>;

/**
 * A {@link SchemaCache} in IndexedDB (via `idb`): tool listings survive page reloads, so a
 * returning page can offer a server's tools before (or without) reconnecting.
 *
 * Database `databaseName` (schema version 1) has one object store, `entries`, keyed by the
 * cache key, holding only the {@link SchemaCacheEntry} fields (never headers or tokens). An
 * expired entry is deleted when it is read. The database opens on first use and closes on
 * {@link close}; when another tab upgrades it (`versionchange`) this cache closes its connection
 * and reopens on the next call.
 *
 * Storage failures reject with `SwitchboardError` `history_error` (the code of local persistence
 * failures; the IndexedDB error is the `cause`): callers should treat them as a cache miss.
 * `set` rejects with `invalid_input` for a malformed entry; every method rejects with `aborted`
 * when its `signal` aborts.
 */
export class IndexedDbSchemaCache implements SchemaCache {
  readonly #databaseName: string;
  readonly #factory: IDBFactory | undefined;
  readonly #now: () => number;
  #database: Promise<IDBPDatabase<SchemaCacheDatabase>> | undefined;

  constructor(options: IndexedDbSchemaCacheOptions = {}) {
    this.#databaseName = options.databaseName ?? DEFAULT_DATABASE_NAME;
    this.#factory = options.indexedDB;
    this.#now = options.now ?? Date.now;
  }

  /** The live entry for `key`, or `undefined` (an expired entry is deleted). */
  async get(
    key: string,
    options: SchemaCacheCallOptions = {},
  ): Promise<SchemaCacheEntry | undefined> {
    const { signal } = options;
    const entry = await this.#transact('readonly', signal, 'read the schema cache', (tx) =>
      tx.store.get(key),
    );
    if (entry === undefined) return undefined;
    if (isSchemaCacheEntry(entry) && this.#now() < entry.expiresAt) return entry;
    // Expired (or unreadable): delete it, unless a fresh entry replaced it meanwhile.
    await this.#transact('readwrite', signal, 'prune the schema cache', async (tx) => {
      const current = await tx.store.get(key);
      if (
        current !== undefined &&
        !(isSchemaCacheEntry(current) && this.#now() < current.expiresAt)
      ) {
        await tx.store.delete(key);
      }
    });
    return undefined;
  }

  /** Stores `entry`'s {@link SchemaCacheEntry} fields under `key`, replacing any earlier entry. */
  async set(
    key: string,
    entry: SchemaCacheEntry,
    options: SchemaCacheCallOptions = {},
  ): Promise<void> {
    if (!isSchemaCacheEntry(entry)) {
      throw new SwitchboardError(
        'invalid_input',
        'A schema cache entry needs a tools array, a finite storedAt and a numeric expiresAt.',
      );
    }
    const stored = pickSchemaCacheEntry(entry);
    await this.#transact('readwrite', options.signal, 'write the schema cache', async (tx) => {
      await tx.store.put(stored, key);
    });
  }

  /** Removes the entry for `key`; unknown keys are ignored. */
  async delete(key: string, options: SchemaCacheCallOptions = {}): Promise<void> {
    await this.#transact('readwrite', options.signal, 'delete from the schema cache', (tx) =>
      tx.store.delete(key),
    );
  }

  /** Removes every entry. */
  async clear(options: SchemaCacheCallOptions = {}): Promise<void> {
    await this.#transact('readwrite', options.signal, 'clear the schema cache', (tx) =>
      tx.store.clear(),
    );
  }

  /** Closes the database connection; later calls open it again. Idempotent. */
  close(): void {
    const database = this.#database;
    this.#database = undefined;
    void database?.then(
      (connection) => connection.close(),
      () => undefined,
    );
  }

  /** Runs `body` in one transaction on `entries` and resolves once it has committed. */
  async #transact<Result, Mode extends IDBTransactionMode>(
    mode: Mode,
    signal: AbortSignal | undefined,
    what: string,
    body: (tx: EntriesTransaction<Mode>) => Promise<Result>,
  ): Promise<Result> {
    throwIfAborted(signal);
    const database = await abortable(this.#open(), signal);
    throwIfAborted(signal);
    let tx: EntriesTransaction<Mode>;
    try {
      tx = database.transaction(['entries'], mode);
    } catch (error) {
      throw toCacheError(error, what, signal);
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
        abortTransaction();
        throw error;
      }
      await done;
      throwIfAborted(signal);
      return result;
    } catch (error) {
      throw toCacheError(error, what, signal);
    } finally {
      signal?.removeEventListener('abort', abortTransaction);
    }
  }

  /** The open database, opening it on first use (single flight; a failure is retried later). */
  #open(): Promise<IDBPDatabase<SchemaCacheDatabase>> {
    if (this.#database === undefined) {
      const forget = () => {
        if (this.#database === database) this.#database = undefined;
      };
      const database = openSchemaCacheDatabase(this.#factory, this.#databaseName, forget);
      database.catch(forget);
      this.#database = database;
    }
    return this.#database;
  }
}

async function openSchemaCacheDatabase(
  factory: IDBFactory | undefined,
  name: string,
  onGone: () => void,
): Promise<IDBPDatabase<SchemaCacheDatabase>> {
  const indexedDB = factory ?? (globalThis.indexedDB as IDBFactory | undefined);
  if (indexedDB === undefined || typeof globalThis.IDBRequest === 'undefined') {
    throw new SwitchboardError(
      'history_error',
      'IndexedDB is not available here (under Node, import "fake-indexeddb/auto" or use MemorySchemaCache).',
    );
  }
  let database: IDBPDatabase<SchemaCacheDatabase>;
  try {
    const request = indexedDB.open(name, DATABASE_VERSION);
    request.addEventListener('upgradeneeded', (event) => {
      upgradeDatabase(
        wrap(request.result) as unknown as IDBPDatabase<SchemaCacheDatabase>,
        event.oldVersion,
      );
    });
    database = (await wrap(request)) as unknown as IDBPDatabase<SchemaCacheDatabase>;
  } catch (error) {
    throw new SwitchboardError(
      'history_error',
      `Could not open the IndexedDB database "${name}": ${describeError(error)}`,
      { cause: error },
    );
  }
  database.addEventListener('versionchange', () => {
    database.close();
    onGone();
  });
  database.addEventListener('close', onGone);
  return database;
}

/** Creates or migrates the schema from `oldVersion`, one step per version. */
function upgradeDatabase(database: IDBPDatabase<SchemaCacheDatabase>, oldVersion: number): void {
  if (oldVersion < 1) {
    database.createObjectStore('entries');
  }
  // Version 2: `if (oldVersion < 2) { … }`. Cached listings may simply be dropped and refetched.
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new SwitchboardError('aborted', 'The schema cache operation was aborted.', {
      cause: signal.reason,
    });
  }
}

/** `promise`, or a rejection with `aborted` as soon as `signal` aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      try {
        throwIfAborted(signal);
      } catch (error) {
        reject(error);
      }
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function toCacheError(
  error: unknown,
  what: string,
  signal: AbortSignal | undefined,
): SwitchboardError {
  if (error instanceof SwitchboardError) return error;
  if (signal?.aborted) {
    return new SwitchboardError('aborted', 'The schema cache operation was aborted.', {
      cause: signal.reason,
    });
  }
  return new SwitchboardError('history_error', `Could not ${what}: ${describeError(error)}`, {
    cause: error,
  });
}

function describeError(error: unknown): string {
  if (error instanceof Error || error instanceof DOMException) {
    return `${error.name}: ${error.message}`;
  }
  return String(error);
}
