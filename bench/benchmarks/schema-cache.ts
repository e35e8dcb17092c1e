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

/** Flips the demo server's `zeroTtl` fault switch (2026-07-28 `tools/list` says `ttlMs: 0`). */
async function setZeroTtl(servers: BenchServers, on: boolean): Promise<void> {
  const response = await fetch(`${servers.demoUrl}/control/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ zeroTtl: on }),
  });
  if (!response.ok) throw new Error(`POST /control/faults answered ${response.status}`);
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

function minRequests(listings: Listing[]): number {
  return Math.min(...listings.map((listing) => listing.requests));
}

function maxRequests(listings: Listing[]): number {
  return Math.max(...listings.map((listing) => listing.requests));
}

export const schemaCacheBenchmark: Benchmark = {
  id: 3,
  key: 'schema-cache',
  title: 'Listing from a warm schema cache (memory; IndexedDB in Chromium)',
  baseline: 'cold listing (same client, empty cache)',
  target: '0 requests; `ttlMs: 0` still obeyed',
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

    // `ttlMs: 0` must still be obeyed: with the switch on, the "warm" listing goes to the server.
    const zeroTtl = { memoryWarm: [] as Listing[], browserWarm: [] as Listing[] };
    log(`2026-07-28 with zeroTtl: memory cache, ${MEMORY_TRIALS} cold/warm pairs`);
    await setZeroTtl(servers, true);
    try {
      for (let trial = 0; trial < MEMORY_TRIALS; trial += 1) {
        const cache = new MemorySchemaCache();
        await memoryListing(servers, servers.modernUrl, cache);
        zeroTtl.memoryWarm.push(await memoryListing(servers, servers.modernUrl, cache));
      }
    } finally {
      await setZeroTtl(servers, false);
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
        await setZeroTtl(servers, true);
        try {
          for (let trial = 0; trial < BROWSER_TRIALS; trial += 1) {
            const databaseName = `bench-schema-cache-zero-ttl-${Date.now()}-${trial}`;
            await reload();
            await list(servers.modernUrl, databaseName);
            await reload();
            zeroTtl.browserWarm.push(await list(servers.modernUrl, databaseName));
          }
        } finally {
          await setZeroTtl(servers, false);
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
    const zeroTtlObeyed =
      minRequests(zeroTtl.memoryWarm) > 0 && minRequests(zeroTtl.browserWarm) > 0;
    const met =
      zeroTtlObeyed &&
      results.every(
        (result) => maxRequests(result.memoryWarm) === 0 && maxRequests(result.browserWarm) === 0,
      );
    const notes: string[] = [];
    if (!zeroTtlObeyed) {
      notes.push(
        'With the `zeroTtl` switch on (the 2026-07-28 endpoint answers `tools/list` with ' +
          '`ttlMs: 0`), a listing was served from the cache: a server-sent `ttlMs: 0` must be obeyed.',
      );
    }
    return {
      verdict: met && toolCounts.size === 1 ? 'met' : 'missed',
      headline:
        `max requests per warm listing — ${warmMax.join('; ')} (memory and IndexedDB); ` +
        `with ttlMs 0 (zeroTtl) min ${Math.min(minRequests(zeroTtl.memoryWarm), minRequests(zeroTtl.browserWarm))} ` +
        `requests per listing (${zeroTtlObeyed ? 'obeyed' : 'NOT obeyed'})`,
      figures: [
        ...results.flatMap(endpointFigures),
        {
          label:
            '2026-07-28 endpoint with the `zeroTtl` switch (`ttlMs: 0`), memory cache: requests per second listing',
          value: summarize(zeroTtl.memoryWarm.map((listing) => listing.requests)),
          unit: 'count',
          note: 'must be > 0: an entry that is stale at once is never served',
        },
        {
          label:
            '2026-07-28 endpoint with the `zeroTtl` switch (`ttlMs: 0`), IndexedDB after a reload: requests per second listing',
          value: summarize(zeroTtl.browserWarm.map((listing) => listing.requests)),
          unit: 'count',
        },
        { label: 'Tools listed (every listing)', value: [...toolCounts].join(', '), unit: '' },
      ],
      method:
        `Demo server, ${servers.toolCount + 8} tools, ${servers.pageSize} per page, both protocol eras; ` +
        'requests counted by the server (its own log, 50 ms after the listing). Memory: ' +
        `${MEMORY_TRIALS} pairs per era of a cold listing into a new \`MemorySchemaCache\` then a warm one ` +
        'by a new `mcpServer` sharing that cache. IndexedDB: Chromium page from 127.0.0.1, ' +
        `${BROWSER_TRIALS} pairs per era: reload, cold listing into a new database, reload again ` +
        '(new JS realm), warm listing by a new `IndexedDbSchemaCache` on that database. Default `cacheTtlMs`. ' +
        'The 2026-07-28 endpoint sends `ttlMs: 300000`, `cacheScope: "public"`; the same pairs (memory, ' +
        `then ${BROWSER_TRIALS} in Chromium) are repeated on it with its \`zeroTtl\` fault switch on (\`ttlMs: 0\`).`,
      notes,
    };
  },
};
