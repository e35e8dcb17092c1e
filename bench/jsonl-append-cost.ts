/**
 * What the JSONL history store costs as a thread grows (issue 17, item 2, JSONL); not part of
 * `npm run bench` (figures written into docs/architecture.md, "JSONL history files"):
 *
 * 1. bytes written by a 40-turn run: an `Agent` run whose model calls a tool 39 times and then
 *    answers, saved through `compareAndSetRun` after every step as the agent does; the thread
 *    file's size beside the size of the final row;
 * 2. `loadRuns` and `compareAndSetRun` (wall and CPU time: the file system's fsync waits vary
 *    with the load of the machine) on threads of 100 / 1,000 / 10,000 items (runs of 10
 *    items of ~300 bytes each, written as full lines): the first `loadRuns` of a new instance,
 *    then the median of 25 `loadRuns`, then of 25 `compareAndSetRun` (each a new run of 2 items,
 *    as a chat turn starts) on that instance, each followed by `loadRunChanges` from the cursor
 *    before it (when the store has it), and the ratio 10,000 / 100.
 *
 * `npx tsx --conditions=@switchboard/source bench/jsonl-append-cost.ts`
 * (`JSONL_STORE_MODULE=<path of another jsonl-history-store.ts>` measures that version instead.)
 */
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { z } from 'zod/v4';
import { Agent, tool, type HistoryStore, type Item, type RunRecord } from '@switchboard/core';
import { mockModel, textTurn, toolCallTurn } from '@switchboard/core/testing';
import type { JsonlHistoryStore as CurrentStore } from '../packages/core/src/node/jsonl-history-store.ts';

type StoreModule = { JsonlHistoryStore: typeof CurrentStore };

const modulePath = resolve(
  process.env['JSONL_STORE_MODULE'] ?? 'packages/core/src/node/jsonl-history-store.ts',
);
const { JsonlHistoryStore } = (await import(pathToFileURL(modulePath).href)) as StoreModule;

/** Wall time and CPU time (user + system, all threads of this process) of `task`, in ms. */
async function timed(task: () => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await task();
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { wall, cpu: (used.user + used.system) / 1_000 };
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function fortyTurnRun(directory: string): Promise<void> {
  const history: HistoryStore = new JsonlHistoryStore({ directory });
  const lookup = tool({
    name: 'lookup',
    description: 'Looks a topic up.',
    input: z.object({ topic: z.string() }),
    execute: ({ topic }) => `Notes on ${topic}: ${'a fact worth keeping in mind. '.repeat(15)}`,
  });
  const turns = [
    ...Array.from({ length: 39 }, (_, index) => toolCallTurn('lookup', { topic: `t${index}` })),
    textTurn(`Summary: ${'all of it fits together. '.repeat(10)}`),
  ];
  const agent = new Agent({ name: 'cost', model: mockModel(turns), tools: [lookup], history });
  const run = agent.execute({ threadId: 't', messages: 'Research forty topics, please.' });
  const result = await run.result();
  if (result.status !== 'completed') throw new Error(`the run ended ${result.status}`);
  const [row] = await history.loadRuns('t');
  const file = (await stat(join(directory, 't.jsonl'))).size;
  const rowBytes = Buffer.byteLength(JSON.stringify(row));
  console.log(
    `40-turn run: ${row?.items.length} items, final row ${rowBytes} bytes; ` +
      `thread file ${file} bytes written (×${(file / rowBytes).toFixed(1)} the row)`,
  );
}

const filler = 'x'.repeat(240);
function itemAt(index: number): Item {
  return index % 2 === 0
    ? { type: 'message', role: 'user', content: `question ${index} ${filler}` }
    : { type: 'message', role: 'assistant', content: `answer ${index} ${filler}` };
}

/** Writes a thread of `items` items (runs of 10) as the old store did: one full line per run. */
async function writeThread(directory: string, items: number): Promise<void> {
  const lines: string[] = [];
  for (let start = 0; start < items; start += 10) {
    const run: RunRecord = {
      runId: `r${start}`,
      threadId: 't',
      status: 'completed',
      items: Array.from({ length: 10 }, (_, offset) => itemAt(start + offset)),
      createdAt: start,
      updatedAt: start,
      version: 1,
    };
    lines.push(JSON.stringify(run));
  }
  await writeFile(join(directory, 't.jsonl'), `${lines.join('\n')}\n`);
}

interface Cost {
  load: number;
  loadCpu: number;
  cas: number;
  casCpu: number;
  changes: number;
  changesCpu: number;
}

async function threadLength(items: number): Promise<Cost> {
  const directory = await mkdtemp(join(tmpdir(), 'switchboard-jsonl-cost-'));
  try {
    await writeThread(directory, items);
    const store = new JsonlHistoryStore({ directory });
    const first = await timed(() => store.loadRuns('t'));
    const loads: { wall: number; cpu: number }[] = [];
    const writes: { wall: number; cpu: number }[] = [];
    const changes: { wall: number; cpu: number }[] = [];
    for (let round = 0; round < 25; round++) loads.push(await timed(() => store.loadRuns('t')));
    let cursor: string | undefined;
    if ('loadRunChanges' in store) cursor = (await store.loadRunChanges('t', undefined)).cursor;
    for (let round = 0; round < 25; round++) {
      const run: RunRecord = {
        runId: `new-${round}`,
        threadId: 't',
        status: 'completed',
        items: [itemAt(0), itemAt(1)],
        createdAt: items + round,
        updatedAt: items + round,
      };
      writes.push(
        await timed(async () => {
          const result = await store.compareAndSetRun(run, 0);
          if (!result.written) throw new Error('compareAndSetRun did not write');
        }),
      );
      if (cursor === undefined || !('loadRunChanges' in store)) continue;
      const since = cursor;
      changes.push(
        await timed(async () => {
          const changed = await store.loadRunChanges('t', since);
          if (changed.complete || changed.runs.length !== 1) throw new Error('not incremental');
          cursor = changed.cursor;
        }),
      );
    }
    const cost: Cost = {
      load: median(loads.map((time) => time.wall)),
      loadCpu: median(loads.map((time) => time.cpu)),
      cas: median(writes.map((time) => time.wall)),
      casCpu: median(writes.map((time) => time.cpu)),
      changes: median(changes.map((time) => time.wall)),
      changesCpu: median(changes.map((time) => time.cpu)),
    };
    const ms = (wall: number, cpu: number) => `${wall.toFixed(2)} ms (CPU ${cpu.toFixed(2)} ms)`;
    console.log(
      `${String(items).padStart(6)} items (${(await stat(join(directory, 't.jsonl'))).size} bytes): ` +
        `first loadRuns ${ms(first.wall, first.cpu)}, loadRuns ${ms(cost.load, cost.loadCpu)}, ` +
        `compareAndSetRun ${ms(cost.cas, cost.casCpu)}` +
        (changes.length === 0 ? '' : `, loadRunChanges ${ms(cost.changes, cost.changesCpu)}`) +
        ' (medians of 25)',
    );
    return cost;
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

console.log(`store: ${modulePath}`);
const runDirectory = await mkdtemp(join(tmpdir(), 'switchboard-jsonl-run-'));
try {
  await fortyTurnRun(runDirectory);
} finally {
  await rm(runDirectory, { recursive: true, force: true });
}
const small = await threadLength(100);
await threadLength(1_000);
const large = await threadLength(10_000);
console.log(
  `ratio 10,000 / 100 items: loadRuns ×${(large.load / small.load).toFixed(1)} ` +
    `(CPU ×${(large.loadCpu / small.loadCpu).toFixed(1)}), compareAndSetRun ` +
    `×${(large.cas / small.cas).toFixed(1)} (CPU ×${(large.casCpu / small.casCpu).toFixed(1)})` +
    (large.changes === 0
      ? ''
      : `, loadRunChanges ×${(large.changes / small.changes).toFixed(1)} ` +
        `(CPU ×${(large.changesCpu / small.changesCpu).toFixed(1)})`),
);
