import { performance } from 'node:perf_hooks';
import { MemorySchemaCache, mcpServer } from '@switchboard/core';
import { sleep, type Benchmark } from '../benchmark.ts';
import { withBrowserPage } from '../browser/chromium.ts';
import type { PageListing } from '../browser/pages/schema-cache-page.ts';
import type { Figure } from '../report.ts';
import { countsDelta, type BenchServers } from '../servers/start-bench-servers.ts';
import { pairedRatios, summarize } from '../stats.ts';

const MEMORY_TRIALS = 5;
const BROWSER_TRIALS = 3;

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

async function memoryListing(
  servers: BenchServers,
  url: string,
  cache: MemorySchemaCache,
): Promise<Listing> {
  const server = mcpServer({ url, name: 'demo', schemaCache: cache });
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

/** One endpoint's cold and warm listings, memory and IndexedDB. */
interface EndpointResult {
  era: '2025' | '2026-07-28';
  memoryCold: Listing[];
  memoryWarm: Listing[];
  browserCold: Listing[];
  browserWarm: Listing[];
  statuses: Set<string>;
}

function endpointFigures(result: EndpointResult): Figure[] {
  const requests = (listings: Listing[]) => summarize(listings.map((listing) => listing.requests));
  const ratio = (warm: Listing[], cold: Listing[]) =>
    summarize(
      pairedRatios(
        warm.map((listing) => listing.ms),
        cold.map((listing) => listing.ms),
      ),
    );
  const era = `${result.era} endpoint`;
  return [
    {
      label: `${era}, memory cache: requests per warm listing`,
      value: requests(result.memoryWarm),
      unit: 'count',
    },
    {
      label: `${era}, memory cache: requests per cold listing (baseline)`,
      value: requests(result.memoryCold),
      unit: 'count',
    },
    {
      label: `${era}, memory cache: warm / cold listing time`,
      value: ratio(result.memoryWarm, result.memoryCold),
      unit: 'ratio',
    },
    {
      label: `${era}, IndexedDB cache in Chromium after a reload: requests per warm listing`,
      value: requests(result.browserWarm),
      unit: 'count',
    },
    {
      label: `${era}, IndexedDB cache in Chromium: requests per cold listing (baseline)`,
      value: requests(result.browserCold),
      unit: 'count',
    },
    {
      label: `${era}, IndexedDB cache: warm / cold listing time`,
      value: ratio(result.browserWarm, result.browserCold),
      unit: 'ratio',
    },
    {
      label: `${era}: server status after a warm browser listing`,
      value: [...result.statuses].join(', '),
      unit: '',
      note: '`cached` = served from the cache without connecting',
    },
  ];
}

function maxRequests(listings: Listing[]): number {
  return Math.max(...listings.map((listing) => listing.requests));
}

export const schemaCacheBenchmark: Benchmark = {
  id: 3,
  key: 'schema-cache',
  title: 'Listing from a warm schema cache (memory; IndexedDB in Chromium)',
  baseline: 'cold listing (same client, empty cache)',
  target: '0 requests',
  async run({ servers, log }) {
    const endpoints: { era: EndpointResult['era']; url: string }[] = [
      { era: '2025', url: servers.legacyUrl },
      { era: '2026-07-28', url: servers.modernUrl },
    ];
    const results: EndpointResult[] = endpoints.map(({ era }) => ({
      era,
      memoryCold: [],
      memoryWarm: [],
      browserCold: [],
      browserWarm: [],
      statuses: new Set<string>(),
    }));

    for (const [index, { era, url }] of endpoints.entries()) {
      const result = results[index] as EndpointResult;
      log(`${era}: memory cache, ${MEMORY_TRIALS} cold/warm pairs`);
      for (let trial = 0; trial < MEMORY_TRIALS; trial += 1) {
        const cache = new MemorySchemaCache();
        result.memoryCold.push(await memoryListing(servers, url, cache));
        result.memoryWarm.push(await memoryListing(servers, url, cache));
      }
    }

    log(`IndexedDB cache in Chromium: ${BROWSER_TRIALS} cold/warm pairs per endpoint`);
    await withBrowserPage(
      new URL('../browser/pages/schema-cache-page.ts', import.meta.url),
      async ({ page, reload }) => {
        const list = async (
          url: string,
          databaseName: string,
          statuses?: Set<string>,
        ): Promise<Listing> => {
          const { value, requests } = await counted(servers, () =>
            page.evaluate(
              (options) =>
                (window.benchListTools as NonNullable<Window['benchListTools']>)(options),
              { url, databaseName },
            ),
          );
          const listing: PageListing = value;
          statuses?.add(listing.status);
          return { ms: listing.ms, tools: listing.tools, requests };
        };
        for (const [index, { url }] of endpoints.entries()) {
          const result = results[index] as EndpointResult;
          // One unmeasured listing so that the first cold trial does not pay for JIT warm-up.
          await list(url, `bench-schema-cache-warmup-${index}`);
          for (let trial = 0; trial < BROWSER_TRIALS; trial += 1) {
            const databaseName = `bench-schema-cache-${Date.now()}-${index}-${trial}`;
            await reload();
            result.browserCold.push(await list(url, databaseName));
            await reload();
            result.browserWarm.push(await list(url, databaseName, result.statuses));
          }
        }
      },
    );

    const all = results.flatMap((result) => [
      ...result.memoryCold,
      ...result.memoryWarm,
      ...result.browserCold,
      ...result.browserWarm,
    ]);
    const toolCounts = new Set(all.map((listing) => listing.tools));
    const warmMax = results.map(
      (result) =>
        `${result.era}: ${Math.max(maxRequests(result.memoryWarm), maxRequests(result.browserWarm))}`,
    );
    const met = results.every(
      (result) => maxRequests(result.memoryWarm) === 0 && maxRequests(result.browserWarm) === 0,
    );
    const modern = results[1] as EndpointResult;
    const notes: string[] = [];
    if (maxRequests(modern.memoryWarm) > 0) {
      notes.push(
        "The demo server's 2026-07-28 endpoint answers `tools/list` with `ttlMs: 0` and " +
          '`cacheScope: "private"` ("immediately stale"). Switchboard honours a server-sent ' +
          '`ttlMs` over `cacheTtlMs`, so the entry it stores has already expired and every ' +
          'listing goes to the network: the warm cache saves nothing against such a server.',
      );
    }
    return {
      verdict: met && toolCounts.size === 1 ? 'met' : 'missed',
      headline: `max requests per warm listing — ${warmMax.join('; ')} (memory and IndexedDB)`,
      figures: [
        ...results.flatMap(endpointFigures),
        { label: 'Tools listed (every listing)', value: [...toolCounts].join(', '), unit: '' },
      ],
      method:
        `Demo server, ${servers.toolCount + 8} tools, ${servers.pageSize} per page, both protocol eras; ` +
        'requests counted by the server (its own log, 50 ms after the listing). Memory: ' +
        `${MEMORY_TRIALS} pairs per era of a cold listing into a new \`MemorySchemaCache\` then a warm one ` +
        'by a new `mcpServer` sharing that cache. IndexedDB: Chromium page from 127.0.0.1, ' +
        `${BROWSER_TRIALS} pairs per era: reload, cold listing into a new database, reload again ` +
        '(new JS realm), warm listing by a new `IndexedDbSchemaCache` on that database. Default `cacheTtlMs`.',
      notes,
    };
  },
};
