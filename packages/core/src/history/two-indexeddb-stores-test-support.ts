import { IDBFactory } from 'fake-indexeddb';
import { IndexedDbHistoryStore } from './indexeddb-history-store.ts';

/**
 * Two `IndexedDbHistoryStore`s on one fresh database (two connections, as two tabs), for the
 * two-client contract suites. Import `fake-indexeddb/auto` first in the test file (`idb` needs
 * its globals).
 */
export function twoIndexedDbStores(): {
  first: IndexedDbHistoryStore;
  second: IndexedDbHistoryStore;
  dispose: () => void;
} {
  const factory = new IDBFactory();
  const first = new IndexedDbHistoryStore({ indexedDB: factory });
  const second = new IndexedDbHistoryStore({ indexedDB: factory });
  return {
    first,
    second,
    dispose: () => {
      first.close();
      second.close();
    },
  };
}
