import { performance } from 'node:perf_hooks';
import type { ClientCapabilities } from '@modelcontextprotocol/client';
import { mcpServer } from '@switchboard/core';
import type { Benchmark } from '../benchmark.ts';
import { connectRawClient, type RawClientOptions } from '../raw-client.ts';
import { countsDelta, type BenchServers } from '../servers/start-bench-servers.ts';
import { capabilityRecorder, type WatchedFetch } from '../wire-capabilities.ts';
import { pairedRatios, summarize } from '../stats.ts';

/** Timed rounds; each has one cold listing per client and one warm pair. */
const ROUNDS = 40;
const TARGET_RATIO = 1.1;

/** The three clients: Switchboard, the raw client declaring what it declares, the bare raw one. */
type Side = 'switchboard' | 'matched' | 'bare';

/**
 * The cold listings' order, by round: Switchboard sits between the two raw clients, and each of
 * them goes before it in one round and after it in the next, so each ratio is of two listings
 * run back to back, and drift (other load, the server's warm-up) falls on both sides alike.
 */
const ORDERS: readonly (readonly Side[])[] = [
  ['matched', 'switchboard', 'bare'],
  ['bare', 'switchboard', 'matched'],
];

/** What a client sent for a cold listing, as the demo server and the wire saw it. */
interface WireView {
  /** `_meta["io.modelcontextprotocol/clientCapabilities"]` of its first `tools/list`. */
  capabilities: unknown;
  /** Requests the demo server received (close included). */
  requests: number;
  /** The same by `HTTP-method json-rpc-method`. */
  byMethod: Record<string, number>;
}

/** A new Switchboard client's listing, connect included, in ms; the client is closed after. */
async function switchboardCold(
  url: string,
  fetch?: WatchedFetch,
): Promise<{ ms: number; tools: number }> {
  const start = performance.now();
  const server = mcpServer({ url, name: 'demo', ...(fetch === undefined ? {} : { fetch }) });
  const tools = await server.listTools();
  const ms = performance.now() - start;
  await server.close();
  return { ms, tools: tools.length };
}

/** The raw client's own paging: `listTools()` without a cursor walks every page. */
async function rawCold(
  url: string,
  options: RawClientOptions,
): Promise<{ ms: number; tools: number }> {
  const start = performance.now();
  const client = await connectRawClient(url, options);
  const { tools } = await client.listTools();
  const ms = performance.now() - start;
  await client.close();
  return { ms, tools: tools.length };
}

/** The listing alone on an already connected Switchboard client, in ms. */
async function switchboardWarm(url: string): Promise<number> {
  const server = mcpServer({ url, name: 'demo' });
  await server.connect();
  const start = performance.now();
  await server.listTools();
  const ms = performance.now() - start;
  await server.close();
  return ms;
}

/** The listing alone on an already connected raw client, in ms. */
async function rawWarm(url: string, options: RawClientOptions): Promise<number> {
  const client = await connectRawClient(url, options);
  const start = performance.now();
  await client.listTools();
  const ms = performance.now() - start;
  await client.close();
  return ms;
}

/** One cold listing (`list`, on the given `fetch`) as the demo server and the wire saw it. */
async function watchedCold(
  servers: BenchServers,
  list: (fetch: WatchedFetch) => Promise<unknown>,
): Promise<WireView> {
  const recorder = capabilityRecorder();
  const before = await servers.counts();
  await list(recorder.fetch);
  const delta = countsDelta(await servers.counts(), before);
  return { capabilities: recorder.declared(), requests: delta.demo, byMethod: delta.byMethod };
}

function describeRequests(view: WireView): string {
  return Object.entries(view.byMethod)
    .sort(([x], [y]) => x.localeCompare(y))
    .map(([method, count]) => `${method} ×${count}`)
    .join(', ');
}

export const listToolsColdBenchmark: Benchmark = {
  id: 2,
  key: 'list-tools-cold',
  title: 'Listing 1,000 tools paged 20 at a time, cold',
  baseline:
    'raw client paging loop (`client.listTools()` walking every page), declaring the capabilities Switchboard declares',
  target: '≤ 1.1×',
  async run({ servers, log }) {
    const url = servers.modernUrl;
    log('warm-up: one watched cold listing per client');
    const switchboardWire = await watchedCold(servers, (fetch) => switchboardCold(url, fetch));
    if (switchboardWire.capabilities === undefined) {
      throw new Error(
        'No tools/list request of Switchboard was seen: its capabilities are unknown.',
      );
    }
    // The raw client declares exactly what Switchboard put on the wire, not a copy of its options.
    const matched: RawClientOptions = {
      capabilities: switchboardWire.capabilities as ClientCapabilities,
    };
    const matchedWire = await watchedCold(servers, (fetch) => rawCold(url, { ...matched, fetch }));
    const bareWire = await watchedCold(servers, (fetch) => rawCold(url, { fetch }));

    const cold: Record<Side, { ms: number; tools: number }[]> = {
      switchboard: [],
      matched: [],
      bare: [],
    };
    const warm = { switchboard: [] as number[], matched: [] as number[] };
    const listCold: Record<Side, () => Promise<{ ms: number; tools: number }>> = {
      switchboard: () => switchboardCold(url),
      matched: () => rawCold(url, matched),
      bare: () => rawCold(url, {}),
    };
    log(`${ROUNDS} rounds: three cold listings back to back, then a warm pair`);
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of ORDERS[round % ORDERS.length] as readonly Side[]) {
        cold[side].push(await listCold[side]());
      }
      if (round % 2 === 0) {
        warm.switchboard.push(await switchboardWarm(url));
        warm.matched.push(await rawWarm(url, matched));
      } else {
        warm.matched.push(await rawWarm(url, matched));
        warm.switchboard.push(await switchboardWarm(url));
      }
    }

    const coldMs = (side: Side) => cold[side].map((listing) => listing.ms);
    const headline = summarize(pairedRatios(coldMs('switchboard'), coldMs('matched')));
    const againstBare = summarize(pairedRatios(coldMs('switchboard'), coldMs('bare')));
    const capabilityCost = summarize(pairedRatios(coldMs('matched'), coldMs('bare')));
    const toolCounts = new Set(Object.values(cold).flatMap((side) => side.map((l) => l.tools)));
    const notes: string[] = [];
    if (toolCounts.size !== 1) notes.push(`Tool counts differed: ${[...toolCounts].join(', ')}.`);
    const same =
      JSON.stringify(matchedWire.capabilities) === JSON.stringify(switchboardWire.capabilities);
    if (!same) notes.push('The matched raw client did not declare what Switchboard declared.');
    return {
      verdict: headline.median <= TARGET_RATIO && same ? 'met' : 'missed',
      headline: `×${headline.median.toFixed(3)} (p25–p75 ${headline.p25.toFixed(3)}–${headline.p75.toFixed(3)}, min–max ${headline.min.toFixed(3)}–${headline.max.toFixed(3)})`,
      figures: [
        {
          label: 'Cold listing (connect + every page) Switchboard / raw, same capabilities',
          value: headline,
          unit: 'ratio',
        },
        {
          label: 'For information: Switchboard / raw declaring no capabilities',
          value: againstBare,
          unit: 'ratio',
          note: 'the same requests; only the capabilities in each request differ (see below)',
        },
        {
          label: 'For information: raw with Switchboard’s capabilities / raw with none',
          value: capabilityCost,
          unit: 'ratio',
        },
        {
          label:
            'Listing only, on an already connected client, Switchboard / raw, same capabilities',
          value: summarize(pairedRatios(warm.switchboard, warm.matched)),
          unit: 'ratio',
        },
        { label: 'Tools listed', value: [...toolCounts].join(', '), unit: '' },
        {
          label: 'Capabilities per request, Switchboard',
          value: JSON.stringify(switchboardWire.capabilities),
          unit: '',
        },
        {
          label: 'Capabilities per request, raw (same capabilities)',
          value: JSON.stringify(matchedWire.capabilities),
          unit: '',
        },
        {
          label: 'Capabilities per request, raw (none declared)',
          value: JSON.stringify(bareWire.capabilities),
          unit: '',
        },
        {
          label: 'Requests of a cold listing by method, Switchboard',
          value: describeRequests(switchboardWire),
          unit: '',
        },
        {
          label: 'Requests of a cold listing by method, raw client',
          value: describeRequests(matchedWire),
          unit: '',
        },
        {
          label: 'For scale only: Switchboard cold listing',
          value: summarize(coldMs('switchboard')),
          unit: 'ms',
        },
        {
          label: 'For scale only: raw cold listing, same capabilities',
          value: summarize(coldMs('matched')),
          unit: 'ms',
        },
        {
          label: 'For scale only: raw cold listing, none declared',
          value: summarize(coldMs('bare')),
          unit: 'ms',
        },
      ],
      method:
        `Demo server with ${servers.toolCount} filler + 8 named tools, ${servers.pageSize} per page, ` +
        `2026-07-28 endpoint. Cold = a new client: Switchboard \`mcpServer({ url }).listTools()\` ` +
        '(no schema cache; connects lazily) vs raw `new Client(…)`, `connect`, `listTools()`. ' +
        'Like for like: in 2026-07-28 every request carries the client capabilities in its `_meta` ' +
        `(there is no \`initialize\`), and the server parses them on each of the ${switchboardWire.requests} ` +
        'requests of a cold listing; Switchboard declares elicitation (form, url) and the tasks extension because a ' +
        'server may elicit or answer with a task during a call, and a raw client offering the same ' +
        'must declare the same. So the baseline raw client declares exactly the capabilities seen ' +
        'on the wire in Switchboard’s first `tools/list` (checked on the wire for both); the ratio ' +
        'against the raw client declaring none is reported for information. Switchboard does not ' +
        'declare less on a listing to save that work: the envelope is required on every request, ' +
        'and a server may shape a listing by what the client declares (the reference "everything" ' +
        'server lists 17 tools to a client declaring elicitation, sampling and roots, 13 to one ' +
        'declaring none), so a listing made with ' +
        'fewer capabilities could differ from what the calls (which must declare them, to be ' +
        'elicited) can reach. ' +
        `One watched warm-up listing per client (capabilities and server request counts), then ` +
        `${ROUNDS} rounds: the three cold listings back to back, Switchboard between the two raw ` +
        'clients, which swap places each round; then a warm pair (order alternating). Each figure ' +
        'is the median of per-round ratios.',
      notes,
    };
  },
};
