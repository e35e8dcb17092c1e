import type { OAuthStore } from './oauth-stores.ts';

/**
 * An {@link OAuthStore} in memory: records live as long as the instance. Values are
 * structured-cloned on the way in and out, so callers never share a record with the store.
 * `toString()`, `JSON.stringify` and `util.inspect` of the store show no record.
 */
export class MemoryOAuthStore<Value> implements OAuthStore<Value> {
  readonly #records = new Map<string, Value>();

  /** The record for `key` (a copy), or `undefined`. */
  read(key: string): Value | undefined {
    const value = this.#records.get(key);
    return value === undefined ? undefined : structuredClone(value);
  }

  /** Replaces the record for `key` with `change(copy of current)`; `undefined` deletes it. */
  update(
    key: string,
    change: (current: Value | undefined) => Value | undefined,
  ): Value | undefined {
    const next = change(this.read(key));
    if (next === undefined) this.#records.delete(key);
    else this.#records.set(key, structuredClone(next));
    return next;
  }

  /** `"[MemoryOAuthStore]"`. */
  toString(): string {
    return '[MemoryOAuthStore]';
  }

  /** `{}`: records are never serialized. */
  toJSON(): Record<string, never> {
    return {};
  }

  /** What `util.inspect` shows in Node: no record. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return this.toString();
  }
}
