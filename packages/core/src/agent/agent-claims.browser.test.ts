// Installs fake-indexeddb's IDBRequest, IDBKeyRange, … as globals, which `idb` needs; each test
// opens its two stores (two connections, as two tabs) on its own IDBFactory.
import 'fake-indexeddb/auto';
import { twoIndexedDbStores } from '../history/two-indexeddb-stores-test-support.ts';
import { describeRunClaims } from './run-claims-contract.ts';

describeRunClaims('IndexedDbHistoryStore (two instances, one database)', twoIndexedDbStores);
