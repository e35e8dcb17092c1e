import type { DBSchema, IDBPDatabase, IDBPTransaction } from 'idb';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import { IndexedDbConnection } from '../internal/indexeddb.ts';
import {
  isSchemaCacheEntry,
  pickSchemaCacheEntry,
  type SchemaCache,
  type SchemaCacheCallOptions,
  type SchemaCacheEntry,
} from './schema-cache.ts';
import type { IndexedDbFactory } from '../internal/dom-globals.ts';

/** Options of {@link IndexedDbSchemaCache}. */
export interface IndexedDbSchemaCacheOptions {
  /** Name of the IndexedDB database. Default `'switchboard-schema-cache'`. */
  databaseName?: string;
  /**
   * The IndexedDB factory. Default `globalThis.indexedDB`. Meant for tests (a fresh
   * `new IDBFactory()` from `fake-indexeddb`); it must come from the same implementation as the
   * global `IDBRequest`, `IDBObjectStore`, … classes, which `idb` checks with `instanceof`.
   */
  indexedDB?: IndexedDbFactory;
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
  readonly #connection: IndexedDbConnection<SchemaCacheDatabase>;
  readonly #now: () => number;

  constructor(options: IndexedDbSchemaCacheOptions = {}) {
    this.#connection = new IndexedDbConnection({
      factory: options.indexedDB,
      databaseName: options.databaseName ?? DEFAULT_DATABASE_NAME,
      version: DATABASE_VERSION,
      upgrade: upgradeDatabase,
      subject: 'schema cache',
      alternative: 'MemorySchemaCache',
      requiresKeyRange: false,
    });
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
    this.#connection.close();
  }

  /** Runs `body` in one transaction on `entries` and resolves once it has committed. */
  #transact<Result, Mode extends IDBTransactionMode>(
    mode: Mode,
    signal: AbortSignal | undefined,
    what: string,
    body: (tx: IDBPTransaction<SchemaCacheDatabase, readonly ['entries'], Mode>) => Promise<Result>,
  ): Promise<Result> {
    return this.#connection.transact(['entries'], mode, signal, what, body);
  }
}

/** Creates or migrates the schema from `oldVersion`, one step per version. */
function upgradeDatabase(database: IDBPDatabase<SchemaCacheDatabase>, oldVersion: number): void {
  if (oldVersion < 1) {
    database.createObjectStore('entries');
  }
  // Version 2: `if (oldVersion < 2) { … }`. Cached listings may simply be dropped and refetched.
}
