import type { DBSchema, IDBPDatabase } from 'idb';
import { IndexedDbConnection } from '../internal/indexeddb.ts';
import { asStorageError } from './storage-error.ts';
import type { OAuthCredentialStore, OAuthServerCredentials } from './oauth-stores.ts';
import type { IndexedDbFactory } from '../internal/dom-globals.ts';

/** Options of {@link IndexedDbOAuthCredentialStore}. */
export interface IndexedDbOAuthCredentialStoreOptions {
  /** Name of the IndexedDB database. Default `'switchboard-oauth'`. */
  databaseName?: string;
  /**
   * The IndexedDB factory. Default `globalThis.indexedDB`. Meant for tests (a fresh
   * `new IDBFactory()` from `fake-indexeddb`).
   */
  indexedDB?: IndexedDbFactory;
}

/** The schema version this code writes; add a step to `upgradeDatabase` when bumping it. */
const DATABASE_VERSION = 1;
/** Default {@link IndexedDbOAuthCredentialStoreOptions.databaseName}. */
export const DEFAULT_OAUTH_DATABASE_NAME = 'switchboard-oauth';

interface OAuthDatabase extends DBSchema {
  /** Out-of-line keys: MCP server URLs. */
  credentials: { key: string; value: OAuthServerCredentials };
}

/**
 * An {@link OAuthCredentialStore} in IndexedDB (via `idb`): tokens and client registrations
 * survive reloads and are shared by the origin's tabs.
 *
 * Database `databaseName` (schema version 1) has one object store, `credentials`, keyed by MCP
 * server URL, holding one {@link OAuthServerCredentials} record per server (entries per
 * `issuer`). `update` runs its read and write in one `readwrite` transaction, so concurrent
 * updates from several tabs never lose one another's changes. The database opens on first use;
 * when another tab upgrades it, this store closes its connection and reopens on the next call.
 *
 * Note that anything running on the origin (including an XSS payload) can read IndexedDB: the
 * tokens are as safe as the origin.
 *
 * Failures reject with `SwitchboardError` `storage_error` (the IndexedDB error as `cause`; the
 * message never contains a stored value).
 */
export class IndexedDbOAuthCredentialStore implements OAuthCredentialStore {
  readonly #connection: IndexedDbConnection<OAuthDatabase>;

  constructor(options: IndexedDbOAuthCredentialStoreOptions = {}) {
    this.#connection = new IndexedDbConnection({
      factory: options.indexedDB,
      databaseName: options.databaseName ?? DEFAULT_OAUTH_DATABASE_NAME,
      version: DATABASE_VERSION,
      upgrade: upgradeDatabase,
      subject: 'OAuth credential store',
      alternative: 'MemoryOAuthStore',
      requiresKeyRange: false,
    });
  }

  /** The credentials of the server `key`, or `undefined`. */
  async read(key: string): Promise<OAuthServerCredentials | undefined> {
    try {
      return await this.#connection.transact(
        ['credentials'],
        'readonly',
        undefined,
        'read the OAuth credentials',
        async (tx) => await tx.objectStore('credentials').get(key),
      );
    } catch (error) {
      throw asStorageError(error);
    }
  }

  /** Replaces the credentials of `key` with `change(current)` in one transaction. */
  async update(
    key: string,
    change: (current: OAuthServerCredentials | undefined) => OAuthServerCredentials | undefined,
  ): Promise<OAuthServerCredentials | undefined> {
    try {
      return await this.#connection.transact(
        ['credentials'],
        'readwrite',
        undefined,
        'write the OAuth credentials',
        async (tx) => {
          const store = tx.objectStore('credentials');
          const next = change(await store.get(key));
          if (next === undefined) await store.delete(key);
          else await store.put(next, key);
          return next;
        },
      );
    } catch (error) {
      throw asStorageError(error);
    }
  }

  /** Closes the database connection; later calls open it again. Idempotent. */
  close(): void {
    this.#connection.close();
  }

  /** `"[IndexedDbOAuthCredentialStore]"`. */
  toString(): string {
    return '[IndexedDbOAuthCredentialStore]';
  }
}

/** Creates or migrates the schema from `oldVersion`, one step per version. */
function upgradeDatabase(database: IDBPDatabase<OAuthDatabase>, oldVersion: number): void {
  if (oldVersion < 1) {
    database.createObjectStore('credentials');
  }
}
