import type { Benchmark } from '../benchmark.ts';
import { withBrowserPage } from '../browser/chromium.ts';
import type { AppendResult, LoadMode } from '../browser/pages/indexeddb-thread-page.ts';
import type { Figure } from '../report.ts';
import { pairedRatios, summarize } from '../stats.ts';

/** 1,000 runs × 10 items = a 10,000-item thread. */
const SEED_RUNS = 1000;
const APPEND_PAIRS = 5;
const LOAD_TRIALS = 7;

function writesOf(result: AppendResult, store: string) {
  return result.writes.filter((write) => write.store === store);
}

export const indexedDbThreadBenchmark: Benchmark = {
  id: 8,
  key: 'indexeddb-thread',
  title: 'IndexedDB thread of 10,000 items in Chromium: writes per appended run, load time',
  baseline: 'appending to an empty thread; a raw IndexedDB `getAll` of the same rows',
  target: 'writes = new items only; load reported',
  async run({ log }) {
    const databaseName = `bench-thread-${Date.now()}`;
    const bigThread = 'thread-10k';
    let seeded = { items: 0, bytes: 0 };
    const big: AppendResult[] = [];
    const empty: AppendResult[] = [];
    const loads: Record<LoadMode, { items: number; ms: number }[]> = {
      raw: [],
      store: [],
      chat: [],
    };
    await withBrowserPage(
      new URL('../browser/pages/indexeddb-thread-page.ts', import.meta.url),
      async ({ page }) => {
        log(`seeding ${SEED_RUNS} runs`);
        seeded = await page.evaluate(
          (options) => (window.benchSeed as NonNullable<Window['benchSeed']>)(options),
          { databaseName, threadId: bigThread, runs: SEED_RUNS },
        );
        const append = (threadId: string) =>
          page.evaluate(
            (options) => (window.benchAppend as NonNullable<Window['benchAppend']>)(options),
            { databaseName, threadId },
          );
        const load = (mode: LoadMode) =>
          page.evaluate(
            (options) => (window.benchLoad as NonNullable<Window['benchLoad']>)(options),
            { databaseName, threadId: bigThread, mode },
          );
        log('one unmeasured load and append (warm-up)');
        await load('store');
        await append('thread-warm-up');
        log(`${LOAD_TRIALS} interleaved loads per mode`);
        const modes: LoadMode[] = ['raw', 'store', 'chat'];
        for (let trial = 0; trial < LOAD_TRIALS; trial += 1) {
          const order = trial % 2 === 0 ? modes : [...modes].reverse();
          for (const mode of order) loads[mode].push(await load(mode));
        }
        log(`${APPEND_PAIRS} interleaved appended runs: 10,000-item thread vs a new empty thread`);
        for (let pair = 0; pair < APPEND_PAIRS; pair += 1) {
          const emptyThread = `thread-empty-${pair}`;
          if (pair % 2 === 0) {
            big.push(await append(bigThread));
            empty.push(await append(emptyThread));
          } else {
            empty.push(await append(emptyThread));
            big.push(await append(bigThread));
          }
        }
      },
    );

    const runWrites = big.flatMap((result) => writesOf(result, 'runs'));
    const onlyOwnRows = big.every((result) => result.writes.every((write) => write.ownRow));
    const noDeletes = big.every((result) =>
      result.writes.every((write) => write.operation !== 'delete'),
    );
    const withinNewItems = big.every((result) =>
      writesOf(result, 'runs').every((write) => write.items <= result.newItems),
    );
    const completed = [...big, ...empty].every((result) => result.status === 'completed');
    const sameAsEmpty = big.every(
      (result, index) =>
        result.writes.length === empty[index]?.writes.length &&
        result.newItems === empty[index]?.newItems,
    );
    const met = onlyOwnRows && noDeletes && withinNewItems && completed;
    const itemsWritten = big.map((result) =>
      writesOf(result, 'runs').reduce((sum, write) => sum + write.items, 0),
    );
    const bytesWritten = big.map((result) =>
      result.writes.reduce((sum, write) => sum + write.bytes, 0),
    );
    const threadItems = [...new Set(big.map((result) => result.threadItems))];
    const storeRatio = summarize(
      pairedRatios(
        loads.store.map((entry) => entry.ms),
        loads.raw.map((entry) => entry.ms),
      ),
    );
    const chatRatio = summarize(
      pairedRatios(
        loads.chat.map((entry) => entry.ms),
        loads.raw.map((entry) => entry.ms),
      ),
    );
    const appendRatio = summarize(
      pairedRatios(
        big.map((result) => result.ms),
        empty.map((result) => result.ms),
      ),
    );
    const figures: Figure[] = [
      {
        label: 'Writes per appended run (all stores)',
        value: summarize(big.map((result) => result.writes.length)),
        unit: 'count',
        note: `runs store ${summarize(big.map((result) => writesOf(result, 'runs').length)).median}, threads store ${summarize(big.map((result) => writesOf(result, 'threads').length)).median}, deletes ${big.flatMap((result) => result.writes).filter((write) => write.operation === 'delete').length}`,
      },
      {
        label: 'New items per appended run',
        value: summarize(big.map((result) => result.newItems)),
        unit: 'count',
      },
      {
        label: 'Items serialised per appended run (sum over its run-row writes)',
        value: summarize(itemsWritten),
        unit: 'count',
        note: `largest single write ${Math.max(...runWrites.map((write) => write.items))} items; every write is the run's own row: ${onlyOwnRows ? 'yes' : 'no'}`,
      },
      {
        label: 'Bytes written per appended run / bytes of the whole thread',
        value: summarize(bytesWritten.map((bytes) => bytes / seeded.bytes)),
        unit: 'ratio',
        note: `${summarize(bytesWritten).median.toLocaleString('en-US')} vs ${seeded.bytes.toLocaleString('en-US')} bytes (JSON length)`,
      },
      {
        label: 'Same writes as appending to an empty thread',
        value: sameAsEmpty ? 'yes' : 'no',
        unit: '',
      },
      {
        label: 'Appended run duration, 10,000-item thread / empty thread',
        value: appendRatio,
        unit: 'ratio',
        note: 'each run loads the thread before it starts',
      },
      {
        label: 'Load 10,000 items: `IndexedDbHistoryStore.loadItems` / raw IndexedDB `getAll`',
        value: storeRatio,
        unit: 'ratio',
      },
      {
        label: 'Load 10,000 items into `AgentChat` (what `useAgent` shows) / raw `getAll`',
        value: chatRatio,
        unit: 'ratio',
      },
      {
        label: 'For scale only: `loadItems` of 10,000 items',
        value: summarize(loads.store.map((entry) => entry.ms)),
        unit: 'ms',
      },
      {
        label: 'For scale only: raw `getAll` of the same rows',
        value: summarize(loads.raw.map((entry) => entry.ms)),
        unit: 'ms',
      },
      {
        label: 'For scale only: `AgentChat.load()`',
        value: summarize(loads.chat.map((entry) => entry.ms)),
        unit: 'ms',
      },
    ];
    const notes: string[] = [];
    if (threadItems.some((count) => count < seeded.items)) {
      notes.push(`The thread held ${threadItems.join(', ')} items before the appends.`);
    }
    if (!completed) notes.push('Not every appended run completed.');
    return {
      verdict: met ? 'met' : 'missed',
      headline:
        `${summarize(big.map((result) => result.writes.length)).median} writes per run, ` +
        `${summarize(itemsWritten).median} items serialised for ${summarize(big.map((result) => result.newItems)).median} new ` +
        `(${((summarize(bytesWritten).median / seeded.bytes) * 100).toFixed(2)}% of the thread's bytes); ` +
        `load ×${storeRatio.median.toFixed(2)} of raw getAll (p25–p75 ${storeRatio.p25.toFixed(2)}–${storeRatio.p75.toFixed(2)}), ` +
        `×${chatRatio.median.toFixed(2)} into AgentChat`,
      figures,
      method:
        `Chromium page from 127.0.0.1, a new database: a thread of ${SEED_RUNS} runs × 10 items ` +
        `(${seeded.items.toLocaleString('en-US')} items, ${seeded.bytes.toLocaleString('en-US')} bytes as JSON) saved ` +
        'with `IndexedDbHistoryStore.saveRun`. Appended run: a real `Agent` on that store (an in-page ' +
        'model calls a local tool once, then answers); every `IDBObjectStore` `put`/`add`/`delete` ' +
        `during the run is recorded. ${APPEND_PAIRS} runs on the big thread interleaved with runs on new ` +
        `empty threads. Loads: ${LOAD_TRIALS} interleaved trials each of a fresh store's \`loadItems\`, ` +
        '`new AgentChat(agent, { threadId }).load()`, and a raw `indexedDB.open` + index `getAll` ' +
        '(open included in all three). One unmeasured warm-up of each.',
      notes,
    };
  },
};
