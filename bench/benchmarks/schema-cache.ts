import { performance } from 'node:perf_hooks';
import { MemorySchemaCache, mcpServer } from '@switchboard/core';
import { sleep, type Benchmark } from '../benchmark.ts';
import { withBrowserPage } from '../browser/chromium.ts';
import type { PageListing } from '../browser/pages/schema-cache-page.ts';
import type { Figure } from '../report.ts';
import { countsDelta, type BenchServers } from '../servers/start-bench-servers.ts';
import { pairedRatios, summarize } from '../stats.ts';

const MEMORY_TRIALS = 10;
const BROWSER_TRIALS = 5;

interface Listing {
  ms: number;
  requests: number;
  tools: number;
}

/** Requests the demo server received while `body` ran (and 50 ms after, for stragglers). */
async function counted<T>(
  servers: BenchServers,
  body: () => Promise<T>,
): Promise<{ value: T; requests: number }> {
  const before = await servers.counts();
  const value = await body();
  await sleep(50);
  return { value, requests: countsDelta(await servers.counts(), before).demo };
}

async function memoryListing(servers: BenchServers, cache: MemorySchemaCache): Promise<Listing> {
  const server = mcpServer({ url: servers.modernUrl, name: 'demo', schemaCache: cache });
  try {
    const { value, requests } = await counted(servers, async () => {
      const start = performance.now();
      const tools = await server.listTools();
      return { ms: performance.now() - start, tools: tools.length };
    });
    return { ...value, requests };
  } finally {
    await server.close();
  }
}

export const schemaCacheBenchmark: Benchmark = {
  id: 3,
  key: 'schema-cache',
  title: 'Listing from a warm schema cache (memory; IndexedDB in Chromium)',
  baseline: 'cold listing (same client, empty cache)',
  target: '0 requests',
  async run({ servers, log }) {
    log(`memory cache: ${MEMORY_TRIALS} cold/warm pairs`);
    const memoryCold: Listing[] = [];
    const memoryWarm: Listing[] = [];
    for (let trial = 0; trial < MEMORY_TRIALS; trial += 1) {
      const cache = new MemorySchemaCache();
      memoryCold.push(await memoryListing(servers, cache));
      memoryWarm.push(await memoryListing(servers, cache));
    }

    log(`IndexedDB cache in Chromium: ${BROWSER_TRIALS} cold/warm pairs, page reloaded between`);
    const browserCold: Listing[] = [];
    const browserWarm: Listing[] = [];
    const statuses = new Set<string>();
    await withBrowserPage(
      new URL('../browser/pages/schema-cache-page.ts', import.meta.url),
      async ({ page, reload }) => {
        const list = async (databaseName: string): Promise<Listing> => {
          const { value, requests } = await counted(servers, () =>
            page.evaluate(
              (options) => (window.benchListTools as NonNullable<Window['benchListTools']>)(options),
              { url: servers.modernUrl, databaseName },
            ),
          );
          const listing: PageListing = value;
          statuses.add(listing.status);
          return { ms: listing.ms, tools: listing.tools, requests };
        };
        // One unmeasured listing so that the first cold trial does not pay for JIT warm-up.
        await list('bench-schema-cache-warmup');
        for (let trial = 0; trial < BROWSER_TRIALS; trial += 1) {
          const databaseName = `bench-schema-cache-${Date.now()}-${trial}`;
          await reload();
          browserCold.push(await list(databaseName));
          await reload();
          const warm = await list(databaseName);
          browserWarm.push(warm);
        }
      },
    );

    const warmRequests = [...memoryWarm, ...browserWarm].map((listing) => listing.requests);
    const met = warmRequests.every((count) => count === 0);
    const memoryRatio = summarize(
      pairedRatios(
        memoryWarm.map((listing) => listing.ms),
        memoryCold.map((listing) => listing.ms),
      ),
    );
    const browserRatio = summarize(
      pairedRatios(
        browserWarm.map((listing) => listing.ms),
        browserCold.map((listing) => listing.ms),
      ),
    );
    const toolCounts = new Set(
      [...memoryCold, ...memoryWarm, ...browserCold, ...browserWarm].map((listing) => listing.tools),
    );
    const figures: Figure[] = [
      {
        label: 'Memory cache: requests per warm listing',
        value: summarize(memoryWarm.map((listing) => listing.requests)),
        unit: 'count',
      },
      {
        label: 'Memory cache: requests per cold listing (baseline)',
        value: summarize(memoryCold.map((listing) => listing.requests)),
        unit: 'count',
      },
      { label: 'Memory cache: warm / cold listing time', value: memoryRatio, unit: 'ratio' },
      {
        label: 'IndexedDB cache (Chromium, after a page reload): requests per warm listing',
        value: summarize(browserWarm.map((listing) => listing.requests)),
        unit: 'count',
      },
      {
        label: 'IndexedDB cache (Chromium): requests per cold listing (baseline, preflights included)',
        value: summarize(browserCold.map((listing) => listing.requests)),
        unit: 'count',
      },
      { label: 'IndexedDB cache: warm / cold listing time', value: browserRatio, unit: 'ratio' },
      { label: 'Tools listed (cold and warm alike)', value: [...toolCounts].join(', '), unit: '' },
      {
        label: 'Server status after a warm browser listing',
        value: [...statuses].join(', '),
        unit: '',
      },
    ];
    return {
      verdict: met && toolCounts.size === 1 ? 'met' : 'missed',
      headline:
        `warm: ${Math.max(...warmRequests)} requests (max over ${warmRequests.length} listings); ` +
        `time warm/cold ×${memoryRatio.median.toFixed(3)} memory, ×${browserRatio.median.toFixed(3)} IndexedDB`,
      figures,
      method:
        `Demo server, ${servers.toolCount + 8} tools, 2026-07-28 endpoint; requests counted by the server ` +
        `(its own log, 50 ms after the listing). Memory: ${MEMORY_TRIALS} pairs of a cold listing into a ` +
        'new `MemorySchemaCache` then a warm one by a new `mcpServer` sharing that cache. IndexedDB: ' +
        `Chromium page from 127.0.0.1, ${BROWSER_TRIALS} pairs: reload, cold listing into a new database, ` +
        'reload again (new JS realm), warm listing by a new `IndexedDbSchemaCache` on that database.',
      notes: [],
    };
  },
};
