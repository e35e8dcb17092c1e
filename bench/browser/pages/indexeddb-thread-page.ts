/**
 * Browser page of benchmark 8: a thread of N items in `IndexedDbHistoryStore`. Seeds it, counts
 * the IndexedDB writes of one appended agent run (by wrapping `IDBObjectStore.prototype.put`,
 * `add` and `delete`), and times loading the thread against a raw IndexedDB read of the same rows.
 */
import {
  Agent,
  AgentChat,
  IndexedDbHistoryStore,
  type Item,
  type Model,
  type RunRecord,
  type RunResult,
  type Tool,
} from '@switchboard/core';

/** One IndexedDB write seen while a run was appended. */
export interface WriteRecord {
  operation: 'put' | 'add' | 'delete';
  store: string;
  /** Items in the written row (`runs` store), 0 otherwise. */
  items: number;
  /** JSON length of the written value, in UTF-16 code units (≈ bytes for this ASCII data). */
  bytes: number;
  /** True when the row belongs to the appended run (or is the thread's own row). */
  ownRow: boolean;
}

/** What appending one run measured. */
export interface AppendResult {
  writes: WriteRecord[];
  /** Items the run added to the thread (its stored row). */
  newItems: number;
  /** JSON length of those items. */
  newItemsBytes: number;
  /** Items in the thread before the run. */
  threadItems: number;
  /** Duration of the run, in ms. */
  ms: number;
  status: string;
}

/** How the thread is loaded. */
export type LoadMode = 'raw' | 'store' | 'chat';

declare global {
  interface Window {
    benchReady?: boolean;
    benchSeed?: (options: {
      databaseName: string;
      threadId: string;
      runs: number;
    }) => Promise<{ items: number; bytes: number }>;
    benchAppend?: (options: { databaseName: string; threadId: string }) => Promise<AppendResult>;
    benchLoad?: (options: {
      databaseName: string;
      threadId: string;
      mode: LoadMode;
    }) => Promise<{ items: number; ms: number }>;
  }
}

/** Items per seeded run: a question, four tool calls with their outputs, an answer. */
const TOOL_CALLS_PER_RUN = 4;

function seededItems(run: number): Item[] {
  const items: Item[] = [
    { type: 'message', role: 'user', content: `Question ${run}: what changed in the report?` },
  ];
  for (let call = 0; call < TOOL_CALLS_PER_RUN; call += 1) {
    const callId = `call_${run}_${call}`;
    items.push({
      type: 'function_call',
      callId,
      name: 'lookup',
      arguments: JSON.stringify({ query: `section ${call} of report ${run}` }),
    });
    items.push({
      type: 'function_call_output',
      callId,
      output: { text: `Section ${call} of report ${run}: revenue up ${call + 2}%, costs flat.` },
    });
  }
  items.push({
    type: 'message',
    role: 'assistant',
    content: `Report ${run}: revenue grew in every section while costs stayed flat.`,
  });
  return items;
}

window.benchSeed = async ({ databaseName, threadId, runs }) => {
  const store = new IndexedDbHistoryStore({ databaseName });
  let items = 0;
  let bytes = 0;
  const base = Date.now() - runs * 1000;
  for (let run = 0; run < runs; run += 1) {
    const runItems = seededItems(run);
    items += runItems.length;
    bytes += JSON.stringify(runItems).length;
    const record: RunRecord = {
      runId: `seed-${run}`,
      threadId,
      status: 'completed',
      items: runItems,
      usage: { inputTokens: 100, outputTokens: 20 },
      state: { version: 1, pending: [], activatedTools: [] },
      createdAt: base + run * 1000,
      updatedAt: base + run * 1000,
    };
    await store.saveRun(record);
  }
  store.close();
  return { items, bytes };
};

/** Calls `lookup` once, then answers. */
const toolThenAnswer: Model = {
  provider: 'bench',
  modelId: 'tool-then-answer',
  async *stream(request) {
    if (request.items.at(-1)?.type === 'function_call_output') {
      yield { type: 'text.delta', delta: 'The report is unchanged.' };
    } else {
      yield {
        type: 'tool.call',
        callId: `call_${crypto.randomUUID()}`,
        name: 'lookup',
        arguments: JSON.stringify({ query: 'latest report' }),
      };
    }
    yield { type: 'done', usage: { inputTokens: 10, outputTokens: 5 } };
  },
};

const lookup: Tool = {
  name: 'lookup',
  description: 'Looks a report section up.',
  inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  async execute(args) {
    return `Found: ${(args as { query: string }).query}.`;
  },
};

window.benchAppend = async ({ databaseName, threadId }) => {
  const history = new IndexedDbHistoryStore({ databaseName });
  const threadItems = (await history.loadItems(threadId)).length;
  const agent = new Agent({ name: 'bench', model: toolThenAnswer, tools: [lookup], history });
  const writes: { operation: WriteRecord['operation']; store: string; value: unknown }[] = [];
  const prototype = IDBObjectStore.prototype;
  const original = { put: prototype.put, add: prototype.add, delete: prototype.delete };
  prototype.put = function (this: IDBObjectStore, value: unknown, key?: IDBValidKey) {
    writes.push({ operation: 'put', store: this.name, value });
    return original.put.call(this, value, key);
  };
  prototype.add = function (this: IDBObjectStore, value: unknown, key?: IDBValidKey) {
    writes.push({ operation: 'add', store: this.name, value });
    return original.add.call(this, value, key);
  };
  prototype.delete = function (this: IDBObjectStore, query: IDBValidKey | IDBKeyRange) {
    writes.push({ operation: 'delete', store: this.name, value: query });
    return original.delete.call(this, query);
  };
  let result: RunResult;
  const start = performance.now();
  try {
    result = await agent.execute({ threadId, messages: 'Did the report change?' }).result();
  } finally {
    Object.assign(prototype, original);
  }
  const ms = performance.now() - start;
  const row = (await history.loadRuns(threadId)).find((run) => run.runId === result.runId);
  history.close();
  return {
    writes: writes.map(({ operation, store, value }) => {
      const record = value as Partial<RunRecord> | undefined;
      return {
        operation,
        store,
        items: Array.isArray(record?.items) ? record.items.length : 0,
        bytes: JSON.stringify(value ?? null).length,
        ownRow: store === 'runs' ? record?.runId === result.runId : record?.threadId === threadId,
      };
    }),
    newItems: row?.items.length ?? 0,
    newItemsBytes: JSON.stringify(row?.items ?? []).length,
    threadItems,
    ms,
    status: result.status,
  };
};

/** The minimum any store must do: open, one index `getAll` of the thread's rows, flatten. */
async function rawLoad(databaseName: string, threadId: string): Promise<number> {
  const database = await new Promise<IDBDatabase>((resolve, reject) => {
    const request = indexedDB.open(databaseName);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  const rows = await new Promise<RunRecord[]>((resolve, reject) => {
    const request = database
      .transaction('runs', 'readonly')
      .objectStore('runs')
      .index('threadId_createdAt')
      .getAll(IDBKeyRange.bound([threadId, -Infinity], [threadId, Infinity]));
    request.onsuccess = () => resolve(request.result as RunRecord[]);
    request.onerror = () => reject(request.error);
  });
  database.close();
  return rows.flatMap((row) => row.items).length;
}

window.benchLoad = async ({ databaseName, threadId, mode }) => {
  const start = performance.now();
  let items: number;
  if (mode === 'raw') {
    items = await rawLoad(databaseName, threadId);
  } else if (mode === 'store') {
    const store = new IndexedDbHistoryStore({ databaseName });
    items = (await store.loadItems(threadId)).length;
    store.close();
  } else {
    const history = new IndexedDbHistoryStore({ databaseName });
    const chat = new AgentChat(new Agent({ name: 'bench', model: toolThenAnswer, history }), {
      threadId,
    });
    await chat.load();
    items = chat.getSnapshot().messages.reduce((total, message) => total + message.parts.length, 0);
    history.close();
  }
  return { items, ms: performance.now() - start };
};

window.benchReady = true;
