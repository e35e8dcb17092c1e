// fake-indexeddb's IDB* classes as globals (jsdom has none) for `idb`; each test gets its own
// fresh IDBFactory.
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { isSwitchboardError } from '../errors/switchboard-error.ts';
import { IndexedDbSchemaCache } from './indexeddb-schema-cache.ts';
import type { SchemaCacheEntry } from './schema-cache.ts';

function entry(storedAt: number, ttlMs: number): SchemaCacheEntry {
  return {
    tools: [{ name: 'echo', inputSchema: { type: 'object' } }],
    storedAt,
    expiresAt: storedAt + ttlMs,
    protocolEra: 'legacy',
    protocolVersion: '2025-11-25',
    serverInfo: { name: 'demo', version: '1.0.0' },
  };
}

/** Every raw `[key, value]` in the `entries` store, read without the cache. */
function rawEntries(factory: IDBFactory, name = 'switchboard-schema-cache') {
  return new Promise<[IDBValidKey, unknown][]>((resolve, reject) => {
    const request = factory.open(name);
    request.onerror = () => reject(request.error ?? new Error('open failed'));
    request.onsuccess = () => {
      const database = request.result;
      const store = database.transaction('entries').objectStore('entries');
      const keys = store.getAllKeys();
      const values = store.getAll();
      values.onsuccess = () => {
        database.close();
        resolve(keys.result.map((key, index) => [key, values.result[index]]));
      };
    };
  });
}

describe('IndexedDbSchemaCache', () => {
  it('returns a stored entry until expiresAt, then undefined, deleting it on read', async () => {
    const factory = new IDBFactory();
    let now = 1_000;
    const cache = new IndexedDbSchemaCache({ indexedDB: factory, now: () => now });
    await cache.set('k', entry(1_000, 500));
    await cache.set('other', entry(1_000, 10_000));

    now = 1_499;
    expect(await cache.get('k')).toEqual(entry(1_000, 500));
    now = 1_500;
    expect(await cache.get('k')).toBeUndefined();
    cache.close();
    expect((await rawEntries(factory)).map(([key]) => key)).toEqual(['other']);
  });

  it('persists across instances (a reload) and honours TTL there too', async () => {
    const factory = new IDBFactory();
    const first = new IndexedDbSchemaCache({ indexedDB: factory, now: () => 0 });
    await first.set('k', entry(0, 1_000));
    first.close();

    const second = new IndexedDbSchemaCache({ indexedDB: factory, now: () => 999 });
    expect(await second.get('k')).toEqual(entry(0, 1_000));
    second.close();
    const third = new IndexedDbSchemaCache({ indexedDB: factory, now: () => 1_000 });
    expect(await third.get('k')).toBeUndefined();
    third.close();
  });

  it('deletes one key and clears all', async () => {
    const factory = new IDBFactory();
    const cache = new IndexedDbSchemaCache({ indexedDB: factory, now: () => 0 });
    await cache.set('a', entry(0, 100));
    await cache.set('b', entry(0, 100));
    await cache.delete('a');
    await cache.delete('missing');
    expect(await cache.get('a')).toBeUndefined();
    expect(await cache.get('b')).toEqual(entry(0, 100));
    await cache.clear();
    expect(await cache.get('b')).toBeUndefined();
    cache.close();
    expect(await rawEntries(factory)).toEqual([]);
  });

  it('stores only the entry fields, never headers', async () => {
    const factory = new IDBFactory();
    const cache = new IndexedDbSchemaCache({ indexedDB: factory, databaseName: 'custom' });
    await cache.set('k', {
      ...entry(0, Number.POSITIVE_INFINITY),
      headers: { authorization: 'Bearer secret-token' },
      fetch: () => undefined,
    } as SchemaCacheEntry);
    cache.close();
    const [[key, value] = []] = await rawEntries(factory, 'custom');
    expect(key).toBe('k');
    expect(value).toEqual(entry(0, Number.POSITIVE_INFINITY));
    expect(JSON.stringify(value)).not.toContain('secret-token');
  });

  it('treats an unreadable stored value as a miss and removes it', async () => {
    const factory = new IDBFactory();
    const cache = new IndexedDbSchemaCache({ indexedDB: factory });
    await cache.set('k', entry(0, Number.POSITIVE_INFINITY));
    cache.close();
    await new Promise<void>((resolve, reject) => {
      const request = factory.open('switchboard-schema-cache');
      request.onsuccess = () => {
        const tx = request.result.transaction('entries', 'readwrite');
        tx.objectStore('entries').put({ tools: 'garbage' }, 'k');
        tx.oncomplete = () => {
          request.result.close();
          resolve();
        };
        tx.onerror = () => reject(tx.error ?? new Error('write failed'));
      };
    });
    const reopened = new IndexedDbSchemaCache({ indexedDB: factory });
    expect(await reopened.get('k')).toBeUndefined();
    reopened.close();
    expect(await rawEntries(factory)).toEqual([]);
  });

  it('rejects malformed entries with invalid_input', async () => {
    const cache = new IndexedDbSchemaCache({ indexedDB: new IDBFactory() });
    const error: unknown = await cache
      .set('k', { tools: [], storedAt: 0 } as unknown as SchemaCacheEntry)
      .catch((failure: unknown) => failure);
    expect(isSwitchboardError(error, 'invalid_input')).toBe(true);
    cache.close();
  });

  it('rejects with history_error and the cause when IndexedDB cannot be opened', async () => {
    const denied = new DOMException('denied', 'SecurityError');
    const cache = new IndexedDbSchemaCache({
      indexedDB: {
        open: () => {
          throw denied;
        },
      } as unknown as IDBFactory,
    });
    const error: unknown = await cache.get('k').catch((failure: unknown) => failure);
    expect(isSwitchboardError(error, 'history_error')).toBe(true);
    expect((error as Error).cause).toBe(denied);
  });

  it('rejects with aborted, before or during the call', async () => {
    const cache = new IndexedDbSchemaCache({ indexedDB: new IDBFactory(), now: () => 0 });
    const signal = AbortSignal.abort();
    for (const call of [
      cache.get('k', { signal }),
      cache.set('k', entry(0, 1), { signal }),
      cache.delete('k', { signal }),
      cache.clear({ signal }),
    ]) {
      const error: unknown = await call.catch((failure: unknown) => failure);
      expect(isSwitchboardError(error, 'aborted')).toBe(true);
    }
    const controller = new AbortController();
    const setting = cache.set('k', entry(0, 100), { signal: controller.signal });
    controller.abort();
    const error: unknown = await setting.catch((failure: unknown) => failure);
    expect(isSwitchboardError(error, 'aborted')).toBe(true);
    expect(await cache.get('k')).toBeUndefined();
    cache.close();
  });
});
