import { describeAttachmentStore } from './attachment-store-contract.ts';
import { describeHistoryStore } from './history-store-contract.ts';
import { MemoryHistoryStore } from './memory-history-store.ts';

describeHistoryStore('MemoryHistoryStore', () => ({ store: new MemoryHistoryStore() }));

describeAttachmentStore('MemoryHistoryStore', () => ({ store: new MemoryHistoryStore() }));
