import { SwitchboardError } from '../errors/switchboard-error.ts';
import {
  isSchemaCacheEntry,
  pickSchemaCacheEntry,
  type SchemaCache,
  type SchemaCacheCallOptions,
  type SchemaCacheEntry,
} from './schema-cache.ts';

/** Options of {@link MemorySchemaCache}. */
export interface MemorySchemaCacheOptions {
  /** The clock, in ms since the epoch, that expiry is judged by. Default `Date.now`. */
  now?: () => number;
}

/**
 * A {@link SchemaCache} in memory: shared by the servers of one page or process, gone when it
 * goes. Entries are copied in and out (`structuredClone`), so callers cannot change what is
 * stored; only the {@link SchemaCacheEntry} fields are kept.
 *
 * @throws SwitchboardError `invalid_input` from `set` when the entry is malformed (see
 *   {@link SchemaCacheEntry}) or not structured-cloneable; `aborted` from any method whose
 *   `signal` is already aborted.
 */
export class MemorySchemaCache implements SchemaCache {
  readonly #entries = new Map<string, SchemaCacheEntry>();
  readonly #now: () => number;

  constructor(options: MemorySchemaCacheOptions = {}) {
    this.#now = options.now ?? Date.now;
  }

  /** The live entry for `key`, or `undefined` (an expired entry is deleted). */
  async get(
    key: string,
    options: SchemaCacheCallOptions = {},
  ): Promise<SchemaCacheEntry | undefined> {
    throwIfAborted(options.signal);
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (this.#now() >= entry.expiresAt) {
      this.#entries.delete(key);
      return undefined;
    }
    return structuredClone(entry);
  }

  /** Stores a copy of `entry`'s {@link SchemaCacheEntry} fields under `key`. */
  async set(
    key: string,
    entry: SchemaCacheEntry,
    options: SchemaCacheCallOptions = {},
  ): Promise<void> {
    throwIfAborted(options.signal);
    if (!isSchemaCacheEntry(entry)) {
      throw new SwitchboardError(
        'invalid_input',
        'A schema cache entry needs a tools array, a finite storedAt and a numeric expiresAt.',
      );
    }
    let copy: SchemaCacheEntry;
    try {
      copy = structuredClone(pickSchemaCacheEntry(entry));
    } catch (error) {
      throw new SwitchboardError('invalid_input', 'A schema cache entry must be plain data.', {
        cause: error,
      });
    }
    this.#entries.set(key, copy);
  }

  /** Removes the entry for `key`; unknown keys are ignored. */
  async delete(key: string, options: SchemaCacheCallOptions = {}): Promise<void> {
    throwIfAborted(options.signal);
    this.#entries.delete(key);
  }

  /** Removes every entry. */
  async clear(options: SchemaCacheCallOptions = {}): Promise<void> {
    throwIfAborted(options.signal);
    this.#entries.clear();
  }
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new SwitchboardError('aborted', 'The schema cache operation was aborted.', {
      cause: signal.reason,
    });
  }
}
