/**
 * What branches cost (docs/conversations.md, "Branches"), measured once and written into that
 * doc; not part of `npm run bench` (no ratio to a baseline, just the two figures the issue asks
 * for):
 *
 * 1. bytes written per edit: an edit of the 10th of 20 messages, with the JSONL store (bytes
 *    appended to the thread's file and `threads.json`) and as JSON of the rows written through
 *    `compareAndSetRun` (what every store receives), beside the thread's own size;
 * 2. load time of a 20-branch thread: `AgentChat.load()` (rows, selected branch, tree, messages)
 *    over a thread whose 20 leaves hang off one message (20 versions of it, the 19 new ones each
 *    followed by two more runs), median of 25 loads, with the memory and the JSONL store.
 *
 * `npx tsx --conditions=@switchboard/source bench/branch-cost.ts`
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  Agent,
  AgentChat,
  MemoryHistoryStore,
  type CompareAndSetResult,
  type HistoryStore,
  type RunRecord,
} from '@switchboard/core';
import { JsonlHistoryStore } from '@switchboard/core/node';
import { mockModel, textTurn } from '@switchboard/core/testing';

/** A question of ~100 characters and an answer of ~400, as a short chat turn. */
const question = (index: number) => `Question ${index}: ${'what about this part? '.repeat(4)}`;
const answer = (index: number) => `Answer ${index}: ${'here is what I found. '.repeat(18)}`;

/** Counts the JSON bytes of every row written through `compareAndSetRun`. */
class CountingStore extends MemoryHistoryStore {
  bytes = 0;
  writes = 0;
  override async compareAndSetRun(
    run: RunRecord,
    expectedVersion: number,
  ): Promise<CompareAndSetResult> {
    this.bytes += Buffer.byteLength(JSON.stringify(run));
    this.writes += 1;
    return await super.compareAndSetRun(run, expectedVersion);
  }
}

function agentOver(history: HistoryStore, turns: number): Agent {
  return new Agent({
    name: 'cost',
    model: mockModel(Array.from({ length: turns }, (_, index) => textTurn(answer(index)))),
    history,
  });
}

async function linearThread(history: HistoryStore, length: number): Promise<AgentChat> {
  const chat = new AgentChat(agentOver(history, length + 1), { threadId: 't' });
  for (let index = 0; index < length; index++) await chat.send(question(index));
  return chat;
}

async function bytesPerEdit(directory: string): Promise<void> {
  const counting = new CountingStore();
  const memoryChat = await linearThread(counting, 20);
  const threadBytes = (await counting.loadRuns('t')).reduce(
    (sum, run) => sum + Buffer.byteLength(JSON.stringify(run)),
    0,
  );
  counting.bytes = 0;
  counting.writes = 0;
  const tenth = memoryChat.getSnapshot().messages[18]?.runId ?? '';
  await memoryChat.edit(tenth, 'Question 9, edited');
  console.log(
    `rows written by an edit of message 10 of 20: ${counting.writes} writes, ${counting.bytes} bytes of JSON ` +
      `(the thread holds ${threadBytes} bytes)`,
  );

  const jsonl = new JsonlHistoryStore({ directory });
  const fileChat = await linearThread(jsonl, 20);
  const files = [join(directory, 't.jsonl'), join(directory, 'threads.json')];
  const sizes = async () => Promise.all(files.map(async (file) => (await stat(file)).size));
  const before = await sizes();
  const runId = fileChat.getSnapshot().messages[18]?.runId ?? '';
  await fileChat.edit(runId, 'Question 9, edited');
  const after = await sizes();
  console.log(
    `JSONL: an edit appended ${(after[0] ?? 0) - (before[0] ?? 0)} bytes to a ${before[0]}-byte thread file; ` +
      `threads.json ${before[1]} → ${after[1]} bytes`,
  );
  const switched = (await jsonl.loadRuns('t'))[9]?.runId ?? '';
  const index = await sizes();
  await fileChat.switchBranch(switched);
  const afterSwitch = await sizes();
  console.log(
    `JSONL: a switch wrote ${(afterSwitch[1] ?? 0) - (index[1] ?? 0)} bytes more in threads.json, ` +
      `${(afterSwitch[0] ?? 0) - (index[0] ?? 0)} in the thread file`,
  );
}

/** 5 runs, then 19 more versions of the 3rd message, each followed by two runs: 20 leaves. */
async function twentyBranchThread(history: HistoryStore): Promise<number> {
  const agent = agentOver(history, 5 + 19 * 3);
  const chat = new AgentChat(agent, { threadId: 't' });
  for (let index = 0; index < 5; index++) await chat.send(question(index));
  const branchPoint = chat.getSnapshot().messages[4]?.runId ?? '';
  for (let version = 0; version < 19; version++) {
    await chat.edit(branchPoint, `${question(2)} (version ${version + 2})`);
    await chat.send(question(100 + version));
    await chat.send(question(200 + version));
  }
  return (await history.loadRuns('t')).length;
}

async function loadTime(name: string, history: HistoryStore): Promise<void> {
  const runs = await twentyBranchThread(history);
  const agent = agentOver(history, 0);
  const times: number[] = [];
  let shown = 0;
  for (let round = 0; round < 25; round++) {
    const started = performance.now();
    const chat = new AgentChat(agent, { threadId: 't' });
    await chat.load();
    times.push(performance.now() - started);
    shown = chat.getSnapshot().messages.length;
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)] ?? 0;
  console.log(
    `${name}: load of a 20-branch thread (${runs} runs, ${shown} messages shown): median ` +
      `${median.toFixed(2)} ms, slowest ${times.at(-1)?.toFixed(2)} ms (25 loads)`,
  );
}

const directory = await mkdtemp(join(tmpdir(), 'switchboard-branch-cost-'));
const loadDirectory = await mkdtemp(join(tmpdir(), 'switchboard-branch-load-'));
try {
  await bytesPerEdit(directory);
  await loadTime('memory', new MemoryHistoryStore());
  await loadTime('JSONL', new JsonlHistoryStore({ directory: loadDirectory }));
} finally {
  await rm(directory, { recursive: true, force: true });
  await rm(loadDirectory, { recursive: true, force: true });
}
