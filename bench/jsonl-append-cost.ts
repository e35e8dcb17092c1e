/**
 * What the JSONL history store costs as a thread grows (issue 17, item 2, JSONL); not part of
 * `npm run bench` (figures written into docs/architecture.md, "JSONL history files"):
 *
 * 1. bytes written by a 40-turn run: an `Agent` run whose model calls a tool 39 times and then
 *    answers, saved through `compareAndSetRun` after every step as the agent does; the thread
 *    file's size beside the size of the final row;
 * 2. `loadRuns` and `compareAndSetRun` on threads of 100 / 1,000 / 10,000 items (runs of 10
 *    items of ~300 bytes each, written as full lines): the first `loadRuns` of a new instance,
 *    then the median of 25 `loadRuns` and of 25 `compareAndSetRun` (each a new run of 2 items,
 *    as a chat turn starts) on that instance, and the ratio 10,000 / 100.
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

type StoreModule = typeof import('../packages/core/src/node/jsonl-history-store.ts');
const modulePath = resolve(
  process.env['JSONL_STORE_MODULE'] ?? 'packages/core/src/node/jsonl-history-store.ts',
);
const { JsonlHistoryStore } = (await import(pathToFileURL(modulePath).href)) as StoreModule;

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

async function threadLength(items: number): Promise<{ load: number; cas: number }> {
  const directory = await mkdtemp(join(tmpdir(), 'switchboard-jsonl-cost-'));
  try {
    await writeThread(directory, items);
    const store = new JsonlHistoryStore({ directory });
    let started = performance.now();
    await store.loadRuns('t');
    const first = performance.now() - started;
    const loads: number[] = [];
    const writes: number[] = [];
    for (let round = 0; round < 25; round++) {
      started = performance.now();
      await store.loadRuns('t');
      loads.push(performance.now() - started);
      const run: RunRecord = {
        runId: `new-${round}`,
        threadId: 't',
        status: 'completed',
        items: [itemAt(0), itemAt(1)],
        createdAt: items + round,
        updatedAt: items + round,
      };
      started = performance.now();
      const result = await store.compareAndSetRun(run, 0);
      writes.push(performance.now() - started);
      if (!result.written) throw new Error('compareAndSetRun did not write');
    }
    const load = median(loads);
    const cas = median(writes);
    console.log(
      `${String(items).padStart(6)} items (${(await stat(join(directory, 't.jsonl'))).size} bytes): ` +
        `first loadRuns ${first.toFixed(2)} ms, loadRuns ${load.toFixed(2)} ms, ` +
        `compareAndSetRun ${cas.toFixed(2)} ms (medians of 25)`,
    );
    return { load, cas };
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
  `ratio 10,000 / 100 items: loadRuns ×${(large.load / small.load).toFixed(1)}, ` +
    `compareAndSetRun ×${(large.cas / small.cas).toFixed(1)}`,
);
