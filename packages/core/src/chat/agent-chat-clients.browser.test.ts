// Installs fake-indexeddb's IDBRequest, IDBKeyRange, … as globals, which `idb` needs; each test
// opens its two stores (two connections, as two tabs) on its own IDBFactory.
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { IndexedDbHistoryStore } from '../history/indexeddb-history-store.ts';
import { describeChatClients } from './agent-chat-clients-contract.ts';

describeChatClients('IndexedDbHistoryStore (two instances, one database)', () => {
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
});
