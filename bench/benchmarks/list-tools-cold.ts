import { performance } from 'node:perf_hooks';
import { mcpServer } from '@switchboard/core';
import type { Benchmark } from '../benchmark.ts';
import { connectRawClient } from '../raw-client.ts';
import { countsDelta, type BenchServers } from '../servers/start-bench-servers.ts';
import { interleave, pairedRatios, summarize } from '../stats.ts';

const TRIALS = 12;
const TARGET_RATIO = 1.1;

interface ListingTrial {
  /** From creating the client to the last page listed, connect included, in ms. */
  coldMs: number;
  /** The listing alone on an already connected client, in ms. */
  listingMs: number;
  tools: number;
  /** Requests the demo server received for the cold listing (close included). */
  requests: number;
  /** The same by `HTTP-method json-rpc-method`. */
  byMethod: Record<string, number>;
}

async function switchboardTrial(servers: BenchServers): Promise<ListingTrial> {
  const before = await servers.counts();
  const start = performance.now();
  const cold = mcpServer({ url: servers.modernUrl, name: 'demo' });
  const tools = await cold.listTools();
  const coldMs = performance.now() - start;
  await cold.close();
  const delta = countsDelta(await servers.counts(), before);

  const warmConnection = mcpServer({ url: servers.modernUrl, name: 'demo' });
  await warmConnection.connect();
  const listingStart = performance.now();
  await warmConnection.listTools();
  const listingMs = performance.now() - listingStart;
  await warmConnection.close();
  return { coldMs, listingMs, tools: tools.length, requests: delta.demo, byMethod: delta.byMethod };
}

/** The raw client's own paging: `listTools()` without a cursor walks every page. */
async function rawTrial(servers: BenchServers): Promise<ListingTrial> {
  const before = await servers.counts();
  const start = performance.now();
  const cold = await connectRawClient(servers.modernUrl);
  const { tools } = await cold.listTools();
  const coldMs = performance.now() - start;
  await cold.close();
  const delta = countsDelta(await servers.counts(), before);

  const warmConnection = await connectRawClient(servers.modernUrl);
  const listingStart = performance.now();
  await warmConnection.listTools();
  const listingMs = performance.now() - listingStart;
  await warmConnection.close();
  return { coldMs, listingMs, tools: tools.length, requests: delta.demo, byMethod: delta.byMethod };
}

export const listToolsColdBenchmark: Benchmark = {
  id: 2,
  key: 'list-tools-cold',
  title: 'Listing 1,000 tools paged 20 at a time, cold',
  baseline: 'raw client paging loop (`client.listTools()` walking every page)',
  target: '≤ 1.1×',
  async run({ servers, log }) {
    log('warm-up one listing per side');
    await switchboardTrial(servers);
    await rawTrial(servers);
    log(`${TRIALS} interleaved pairs`);
    const { a, b } = await interleave(
      TRIALS,
      () => switchboardTrial(servers),
      () => rawTrial(servers),
    );
    const cold = summarize(
      pairedRatios(
        a.map((trial) => trial.coldMs),
        b.map((trial) => trial.coldMs),
      ),
    );
    const listing = summarize(
      pairedRatios(
        a.map((trial) => trial.listingMs),
        b.map((trial) => trial.listingMs),
      ),
    );
    const toolCounts = new Set([...a, ...b].map((trial) => trial.tools));
    const describeRequests = (trial: ListingTrial | undefined) =>
      Object.entries(trial?.byMethod ?? {})
        .sort(([x], [y]) => x.localeCompare(y))
        .map(([method, count]) => `${method} ×${count}`)
        .join(', ');
    const requestsSwitchboard = summarize(a.map((trial) => trial.requests));
    const requestsRaw = summarize(b.map((trial) => trial.requests));
    const notes: string[] = [];
    if (toolCounts.size !== 1) notes.push(`Tool counts differed: ${[...toolCounts].join(', ')}.`);
    return {
      verdict: cold.median <= TARGET_RATIO ? 'met' : 'missed',
      headline: `×${cold.median.toFixed(3)} (p25–p75 ${cold.p25.toFixed(3)}–${cold.p75.toFixed(3)}, min–max ${cold.min.toFixed(3)}–${cold.max.toFixed(3)})`,
      figures: [
        {
          label: 'Cold listing (connect + every page) Switchboard / raw',
          value: cold,
          unit: 'ratio',
        },
        {
          label: 'Listing only, on an already connected client, Switchboard / raw',
          value: listing,
          unit: 'ratio',
        },
        { label: 'Tools listed', value: [...toolCounts].join(', '), unit: '' },
        {
          label: 'HTTP requests per cold listing, Switchboard',
          value: requestsSwitchboard,
          unit: 'count',
        },
        { label: 'HTTP requests per cold listing, raw client', value: requestsRaw, unit: 'count' },
        {
          label: 'Requests of the last cold listing by method, Switchboard',
          value: describeRequests(a.at(-1)),
          unit: '',
        },
        {
          label: 'Requests of the last cold listing by method, raw client',
          value: describeRequests(b.at(-1)),
          unit: '',
        },
        {
          label: 'For scale only: Switchboard cold listing',
          value: summarize(a.map((trial) => trial.coldMs)),
          unit: 'ms',
        },
        {
          label: 'For scale only: raw cold listing',
          value: summarize(b.map((trial) => trial.coldMs)),
          unit: 'ms',
        },
      ],
      method:
        `Demo server with ${servers.toolCount} filler + 8 named tools, ${servers.pageSize} per page, ` +
        `2026-07-28 endpoint. Cold = a new client: Switchboard \`mcpServer({ url }).listTools()\` ` +
        '(no schema cache; connects lazily) vs raw `new Client(…)`, `connect`, `listTools()`. ' +
        `One warm-up pair, then ${TRIALS} interleaved pairs (ABBA). Requests counted by the server.`,
      notes,
    };
  },
};
