import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import { JsonlHistoryStore } from '../node/jsonl-history-store.ts';
import { describeRunClaims } from './run-claims-contract.ts';

describeRunClaims('MemoryHistoryStore (two Agents, one store)', () => {
  const store = new MemoryHistoryStore();
  return { first: store, second: store };
});

describeRunClaims('JsonlHistoryStore (two instances, one directory)', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'switchboard-claims-'));
  return {
    first: new JsonlHistoryStore({ directory }),
    second: new JsonlHistoryStore({ directory }),
    dispose: () => rm(directory, { recursive: true, force: true }),
  };
});
