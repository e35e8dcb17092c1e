import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import { describeChatClients } from './agent-chat-clients-contract.ts';

// One memory store seen by two agents, as two `Agent` instances of one process.
describeChatClients('MemoryHistoryStore', () => {
  const store = new MemoryHistoryStore();
  return { first: store, second: store };
});
