// Installs fake-indexeddb's IDBRequest, IDBObjectStore, IDBKeyRange, … as globals (jsdom has
// none), which `idb` and the store need; each test still gets its own fresh IDBFactory.
import 'fake-indexeddb/auto';
import { IDBFactory, IDBObjectStore } from 'fake-indexeddb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isSwitchboardError } from '../errors/switchboard-error.ts';
import {
  assistantMessage,
  describeHistoryStore,
  makeRun,
  sampleRunState,
  userMessage,
} from './history-store-contract.ts';
import { IndexedDbHistoryStore } from './indexeddb-history-store.ts';

describeHistoryStore('IndexedDbHistoryStore', () => {
  const factory = new IDBFactory();
  const stores: IndexedDbHistoryStore[] = [];
  const open = () => {
    const store = new IndexedDbHistoryStore({ indexedDB: factory });
    stores.push(store);
    return store;
  };
  return {
    store: open(),
    reopen: open,
    dispose: () => stores.forEach((store) => store.close()),
  };
});

/** Opens `name` at `version` directly on `factory`, resolving once it is open. */
function openRaw(factory: IDBFactory, name: string, version?: number): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = factory.open(name, version);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('open failed'));
    request.onblocked = () => reject(new Error('blocked'));
  });
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return await promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe('IndexedDbHistoryStore', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('creates the threads, runs, attachments and runChanges stores with their indexes (schema version 3)', async () => {
    const factory = new IDBFactory();
    const store = new IndexedDbHistoryStore({ indexedDB: factory, databaseName: 'custom' });
    await store.listThreads();
    store.close();

    const database = await openRaw(factory, 'custom');
    expect(database.version).toBe(3);
    expect([...database.objectStoreNames]).toEqual([
      'attachments',
      'runChanges',
      'runs',
      'threads',
    ]);
    const changes = database.transaction('runChanges').objectStore('runChanges');
    expect(changes.keyPath).toBe('runId');
    expect(changes.index('threadId_change').keyPath).toEqual(['threadId', 'change']);
    expect(database.transaction('attachments').objectStore('attachments').keyPath).toEqual([
      'threadId',
      'attachmentId',
    ]);
    const tx = database.transaction(['runs', 'threads']);
    const runs = tx.objectStore('runs');
    const threads = tx.objectStore('threads');
    expect([runs.keyPath, threads.keyPath]).toEqual(['runId', 'threadId']);
    expect(runs.index('threadId_createdAt').keyPath).toEqual(['threadId', 'createdAt']);
    expect(threads.index('updatedAt').keyPath).toBe('updatedAt');
    database.close();
  });

  it('writes one run row, one thread row and one change row per save, however long the thread', async () => {
    const factory = new IDBFactory();
    const store = new IndexedDbHistoryStore({ indexedDB: factory });
    const put = vi.spyOn(IDBObjectStore.prototype, 'put');
    const putsByStore = () => {
      const counts: Record<string, number> = {};
      for (const context of put.mock.contexts) {
        const name = (context as IDBObjectStore).name;
        counts[name] = (counts[name] ?? 0) + 1;
      }
      put.mockClear();
      return counts;
    };

    const item = (index: number) => [userMessage(`question ${index}`), assistantMessage('answer')];
    await store.saveRun(makeRun('short', 'short-0', 0, item(0)));
    put.mockClear();
    await store.saveRun(makeRun('short', 'short-1', 1, item(1)));
    expect(putsByStore()).toEqual({ runs: 1, threads: 1, runChanges: 1 });
    expect(put.mock.calls).toEqual([]);

    for (let index = 0; index < 60; index += 1) {
      await store.saveRun(makeRun('long', `long-${index}`, index, item(index)));
    }
    put.mockClear();
    const next = makeRun('long', 'long-60', 60, item(60));
    await store.saveRun(next);
    const counts = putsByStore();
    expect(counts).toEqual({ runs: 1, threads: 1, runChanges: 1 });

    // Updating a run in place (a paused run resumed) is also one row.
    await store.saveRun({ ...next, status: 'paused', state: sampleRunState(), updatedAt: 99 });
    expect(putsByStore()).toEqual({ runs: 1, threads: 1, runChanges: 1 });
    expect((await store.loadRuns('long')).length).toBe(61);
    store.close();
  });

  it('stores the exact run row that was saved', async () => {
    const factory = new IDBFactory();
    const store = new IndexedDbHistoryStore({ indexedDB: factory });
    const put = vi.spyOn(IDBObjectStore.prototype, 'put');
    const run = makeRun('t1', 'r1', 1_000, [userMessage('Hello')], { state: sampleRunState() });
    await store.saveRun(run);
    const runPut = put.mock.calls.find((_, index) => {
      return (put.mock.contexts[index] as IDBObjectStore).name === 'runs';
    });
    expect(runPut?.[0]).toEqual(run);
    store.close();
  });

  it('rejects with history_error and writes nothing when a run is not cloneable', async () => {
    const factory = new IDBFactory();
    const store = new IndexedDbHistoryStore({ indexedDB: factory });
    const run = makeRun('t1', 'r1', 1_000, [userMessage('Hello')], {
      state: { version: 1, pending: [], resumeState: () => 'not data' } as never,
    });
    const error = await failure(store.saveRun(run));
    expect(isSwitchboardError(error, 'history_error')).toBe(true);
    expect((error as Error).cause).toBeInstanceOf(Error);
    expect(await store.listThreads()).toEqual([]);
    expect(await store.loadRuns('t1')).toEqual([]);
    store.close();
  });

  it('rejects runs whose index keys would be invalid with invalid_input', async () => {
    const store = new IndexedDbHistoryStore({ indexedDB: new IDBFactory() });
    const error = await failure(
      store.saveRun(makeRun('t1', 'r1', Number.NaN, [userMessage('Hello')])),
    );
    expect(isSwitchboardError(error, 'invalid_input')).toBe(true);
    store.close();
  });

  it('rejects with history_error, with the cause, when IndexedDB cannot be opened', async () => {
    const denied = new DOMException('The user denied storage.', 'SecurityError');
    const factory = {
      open: () => {
        throw denied;
      },
    } as unknown as IDBFactory;
    const store = new IndexedDbHistoryStore({ indexedDB: factory });
    const error = await failure(store.listThreads());
    expect(isSwitchboardError(error, 'history_error')).toBe(true);
    expect((error as Error).cause).toBe(denied);
    expect((error as Error).message).toContain('SecurityError');
  });

  it('rejects with history_error when there is no IndexedDB at all', async () => {
    const original = globalThis.indexedDB;
    vi.stubGlobal('indexedDB', undefined);
    try {
      const error = await failure(new IndexedDbHistoryStore().loadItems('t1'));
      expect(isSwitchboardError(error, 'history_error')).toBe(true);
    } finally {
      vi.unstubAllGlobals();
    }
    expect(globalThis.indexedDB).toBe(original);
  });

  it('uses globalThis.indexedDB by default', async () => {
    const store = new IndexedDbHistoryStore({ databaseName: `default-${crypto.randomUUID()}` });
    await store.saveRun(makeRun('t1', 'r1', 1_000, [userMessage('Hello')]));
    expect(await store.loadItems('t1')).toEqual([userMessage('Hello')]);
    store.close();
  });

  it('steps aside when another tab upgrades the database, then reports the newer version', async () => {
    const factory = new IDBFactory();
    const store = new IndexedDbHistoryStore({ indexedDB: factory });
    await store.saveRun(makeRun('t1', 'r1', 1_000, [userMessage('Hello')]));

    // Would reject with "blocked" if the store kept its connection open.
    const upgraded = await openRaw(factory, 'switchboard', 4);
    expect(upgraded.version).toBe(4);
    upgraded.close();

    const error = await failure(store.loadItems('t1'));
    expect(isSwitchboardError(error, 'history_error')).toBe(true);
    expect((error as Error).message).toContain('VersionError');
  });

  it('upgrades a version 1 database to version 3, keeping its threads and runs', async () => {
    const factory = new IDBFactory();
    const store = new IndexedDbHistoryStore({ indexedDB: factory });
    await store.saveRun(makeRun('t1', 'r1', 1_000, [userMessage('Hello')]));
    store.close();
    // Make it a version 1 database again: what the previous release left on disk.
    await new Promise<void>((resolve, reject) => {
      const request = factory.deleteDatabase('switchboard');
      request.onsuccess = () => resolve();
      request.onerror = () => reject(request.error ?? new Error('delete failed'));
    });
    const old = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = factory.open('switchboard', 1);
      request.onupgradeneeded = () => {
        const database = request.result;
        database
          .createObjectStore('threads', { keyPath: 'threadId' })
          .createIndex('updatedAt', 'updatedAt');
        database
          .createObjectStore('runs', { keyPath: 'runId' })
          .createIndex('threadId_createdAt', ['threadId', 'createdAt']);
        const run = makeRun('t1', 'r1', 1_000, [userMessage('Hello')]);
        request.transaction?.objectStore('runs').put(run);
        request.transaction?.objectStore('threads').put({
          threadId: 't1',
          title: 'Hello',
          titleSource: 'auto',
          createdAt: 1_000,
          updatedAt: 1_001,
        });
      };
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error ?? new Error('open failed'));
    });
    old.close();

    const upgraded = new IndexedDbHistoryStore({ indexedDB: factory });
    expect(await upgraded.loadItems('t1')).toEqual([userMessage('Hello')]);
    await upgraded.attachments.put('t1', 'a', new Blob([Uint8Array.of(7)]));
    expect(await upgraded.attachments.get('t1', 'a')).toBeDefined();
    // Version 3: the old thread reads whole first, then only what is written since.
    const whole = await upgraded.loadRunChanges('t1', undefined);
    expect(whole).toMatchObject({ complete: true, runs: [{ runId: 'r1' }] });
    await upgraded.saveRun(makeRun('t1', 'r2', 2_000, [userMessage('Again')]));
    const first = await upgraded.loadRunChanges('t1', whole.cursor);
    // The old thread's first write gives it a generation: that answer is whole once more.
    expect(first).toMatchObject({ complete: true, runs: [{ runId: 'r1' }, { runId: 'r2' }] });
    await upgraded.saveRun(makeRun('t1', 'r3', 3_000, [userMessage('Once more')]));
    expect(await upgraded.loadRunChanges('t1', first.cursor)).toMatchObject({
      complete: false,
      runs: [{ runId: 'r3' }],
    });
    upgraded.close();
  });

  it('closes its connection on close() and reopens on the next call', async () => {
    const factory = new IDBFactory();
    const store = new IndexedDbHistoryStore({ indexedDB: factory });
    await store.saveRun(makeRun('t1', 'r1', 1_000, [userMessage('Hello')]));
    store.close();
    store.close();

    // Deleting needs every connection closed; it would be blocked otherwise.
    await new Promise<void>((resolve, reject) => {
      const request = factory.deleteDatabase('switchboard');
      request.onsuccess = () => resolve();
      request.onerror = () => reject(request.error ?? new Error('delete failed'));
      request.onblocked = () => reject(new Error('blocked'));
    });
    expect(await store.listThreads()).toEqual([]);
    store.close();
  });

  it('rejects with aborted when the signal aborts while the database opens', async () => {
    const store = new IndexedDbHistoryStore({ indexedDB: new IDBFactory() });
    const controller = new AbortController();
    const listing = store.listThreads({ signal: controller.signal });
    controller.abort();
    const error = await failure(listing);
    expect(isSwitchboardError(error, 'aborted')).toBe(true);
    // The store still works for calls without that signal.
    expect(await store.listThreads()).toEqual([]);
    store.close();
  });
});
