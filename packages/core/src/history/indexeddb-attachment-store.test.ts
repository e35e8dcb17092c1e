// Node's own Blob with fake-indexeddb: jsdom's Blob does not survive fake-indexeddb's
// structured clone (it comes back a plain object), Node's does. The e2e spec
// (e2e/tests/attachments.spec.ts) checks Chromium's real IndexedDB keeps Blobs.
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { describeAttachmentStore } from './attachment-store-contract.ts';
import { IndexedDbHistoryStore } from './indexeddb-history-store.ts';

describeAttachmentStore('IndexedDbHistoryStore', () => {
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

describe('IndexedDbHistoryStore attachments rows', () => {
  it('stores the bytes as a Blob keyed by [threadId, attachmentId], not as a string', async () => {
    const factory = new IDBFactory();
    const store = new IndexedDbHistoryStore({ indexedDB: factory });
    await store.attachments.put('t1', 'a1', new Blob([Uint8Array.of(1, 2)]));
    store.close();
    const database = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = factory.open('switchboard');
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error ?? new Error('open failed'));
    });
    const row = await new Promise<unknown>((resolve, reject) => {
      const request = database
        .transaction('attachments')
        .objectStore('attachments')
        .get(['t1', 'a1']);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error ?? new Error('get failed'));
    });
    database.close();
    expect(row).toMatchObject({ threadId: 't1', attachmentId: 'a1' });
    expect((row as { bytes: unknown }).bytes).toBeInstanceOf(Blob);
  });
});
