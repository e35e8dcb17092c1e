import { describeHistoryStore } from './history-store-contract.ts';
import { MemoryHistoryStore } from './memory-history-store.ts';

// MemoryHistoryStore does not look at `signal` (its calls never wait on anything).
describeHistoryStore('MemoryHistoryStore', () => ({ store: new MemoryHistoryStore() }), {
  honoursSignal: false,
});
