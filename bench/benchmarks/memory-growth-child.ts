/**
 * Child process of benchmark 10, run as `node --expose-gc --import tsx memory-growth-child.ts`
 * (plus the V8 flags the parent chooses) with `BENCH_MCP_URL`, `BENCH_MODEL_URL` and
 * `BENCH_KEEP_ALIVE_MS` (the servers' keep-alive timeout, which the child's fetch matches). Runs agent
 * runs with one MCP tool call each and, at checkpoints, reports the heap after full garbage
 * collection (in total and its V8 code space apart), and the number of live instances of the
 * objects a leak would pile up (abort signals, streams, MCP sessions, call timers, run channels).
 * Prints one JSON line on stdout.
 */
import { subscribe } from 'node:diagnostics_channel';
import { Session } from 'node:inspector/promises';
import { getHeapSpaceStatistics } from 'node:v8';
import { Agent, mcpServer } from '@switchboard/core';
import { openaiChatModel } from '@switchboard/core/openai';

/** One checkpoint: heap samples and live instance counts after `runs` runs. */
export interface MemoryCheckpoint {
  runs: number;
  /** `heapUsed` after full GCs, repeated, in bytes. */
  heapSamples: number[];
  /**
   * V8's code space (compiled machine code) at each of `heapSamples`, in bytes: part of
   * `heapUsed`, grown by the JIT as it optimises hot functions, not by objects a run leaves.
   */
  codeSpaceSamples: number[];
  /** Used bytes per V8 heap space (`v8.getHeapSpaceStatistics()`) at the last sample. */
  spaces: Record<string, number>;
  /** Live instances per kind of our objects (after a full GC). */
  instances: Record<string, number>;
  /**
   * Live weak references of the kind Node's `AbortSignal.any` keeps per dependant signal (its
   * internal `SafeWeakRef`; `undefined` when this Node keeps them otherwise). Node keeps them on
   * a long-lived source signal (seen on 20.20.2 and on 22.23.3: two per run on both while the MCP
   * SDK's transport combined its signal with each request's); flat since the session's transport
   * hands the SDK no request signal to combine.
   */
  abortSignalAnyWeakRefs: number | undefined;
  /** `process.getActiveResourcesInfo()` counted by type (timers, sockets, …). */
  resources: Record<string, number>;
  /** HTTP connections fetch opened so far (Node's `undici:client:connected` channel). */
  connectionsOpened: number;
  /** `model.retry` chunks seen so far: model calls that failed and were tried again. */
  modelRetries: number;
}

const CHECKPOINTS = (process.env['BENCH_CHECKPOINTS'] ?? '10,100,350,600,850,1100')
  .split(',')
  .map(Number);
const SAMPLES = 7;

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');
const mcpUrl = process.env['BENCH_MCP_URL'];
const modelUrl = process.env['BENCH_MODEL_URL'];
const keepAliveMs = Number(process.env['BENCH_KEEP_ALIVE_MS']);
if (mcpUrl === undefined || modelUrl === undefined || !(keepAliveMs > 0)) {
  throw new Error('BENCH_MCP_URL, BENCH_MODEL_URL and BENCH_KEEP_ALIVE_MS are required');
}

/**
 * Keeps fetch's idle connections open for `ms` (its default is 4 s, or the server's
 * `Keep-Alive: timeout=` less 2 s; the demo server's event-stream answers send none). A
 * checkpoint takes seconds, so with the defaults the connections expired during checkpoints, at
 * random ones, and the runs after them took paths a steady run does not: a socket torn down with
 * an error (Node's stream `destroy` reads the error's `stack`, and V8 then builds and keeps, once
 * per script, the line-end table of every script on that stack: ~170 KB for undici's bundle,
 * `net`, web streams and timers), a reconnect, a model call retried. Whichever checkpoint saw the
 * first of them after the baseline showed a one-off step of up to ~250 KiB as "growth".
 *
 * Node's fetch reads its dispatcher from this global symbol on every request (the one
 * `undici.setGlobalDispatcher` sets); the replacement is the same class with longer timeouts.
 */
function keepFetchConnectionsAlive(ms: number): void {
  new Headers(); // loads Node's bundled undici, which installs its global dispatcher
  const key = Symbol.for('undici.globalDispatcher.1');
  const current: unknown = Reflect.get(globalThis, key);
  if (typeof current !== 'object' || current === null) {
    throw new Error("Node's fetch dispatcher was not found");
  }
  const Dispatcher = current.constructor as new (options: object) => object;
  Reflect.set(globalThis, key, new Dispatcher({ keepAliveTimeout: ms, keepAliveMaxTimeout: ms }));
}
keepFetchConnectionsAlive(keepAliveMs);

let connectionsOpened = 0;
subscribe('undici:client:connected', () => (connectionsOpened += 1));
let modelRetries = 0;

/**
 * A class of `@switchboard/core`, from the module beside the entry this process resolves the
 * package to (the built `dist/` here; `src/` under the source condition). The counted classes
 * must be the very ones the agent uses: importing `src/` while the agent runs `dist/` counted
 * another copy's instances, always 0 (an open MCP session showed as `McpSession 0`).
 */
async function coreClass(path: string, name: string): Promise<{ prototype: object }> {
  const entry = import.meta.resolve('@switchboard/core');
  const extension = entry.endsWith('.ts') ? '.ts' : '.js';
  const module = (await import(new URL(`./${path}${extension}`, entry).href)) as Record<
    string,
    { prototype: object } | undefined
  >;
  const found = module[name];
  if (found === undefined) throw new Error(`${name} is not exported by ${path}`);
  return found;
}

// Reachable from the inspector's global scope, for `Runtime.queryObjects`.
const kinds: Record<string, { prototype: object }> = {
  AbortController,
  AbortSignal,
  ReadableStream,
  McpSession: await coreClass('mcp/connection/mcp-session', 'McpSession'),
  CallTimer: await coreClass('mcp/call-timer', 'CallTimer'),
  ReplayChannel: await coreClass('internal/replay-channel', 'ReplayChannel'),
};

/**
 * The prototype of the weak references Node keeps for `AbortSignal.any` (its internal
 * `SafeWeakRef`, reachable no other way): combine a signal once and read the source's set of
 * dependants. `undefined` on a Node that keeps them otherwise.
 */
function abortSignalAnyWeakRefPrototype(): object | undefined {
  const source = new AbortController().signal;
  AbortSignal.any([source]);
  const symbol = Object.getOwnPropertySymbols(source).find(
    (candidate) => candidate.description === 'kDependantSignals',
  );
  const dependants: unknown = symbol === undefined ? undefined : Reflect.get(source, symbol);
  if (typeof dependants !== 'object' || dependants === null || !(Symbol.iterator in dependants)) {
    return undefined;
  }
  const [first] = dependants as Iterable<unknown>;
  return typeof first === 'object' && first !== null
    ? (Object.getPrototypeOf(first) as object)
    : undefined;
}
const weakRefPrototype = abortSignalAnyWeakRefPrototype();
(globalThis as { benchKinds?: typeof kinds }).benchKinds = {
  ...kinds,
  ...(weakRefPrototype === undefined
    ? {}
    : { AbortSignalAnyWeakRef: { prototype: weakRefPrototype } }),
};

const inspector = new Session();
inspector.connect();

async function liveInstances(kind: string): Promise<number> {
  const { result } = await inspector.post('Runtime.evaluate', {
    expression: `globalThis.benchKinds[${JSON.stringify(kind)}].prototype`,
  });
  const { objects } = await inspector.post('Runtime.queryObjects', {
    prototypeObjectId: result.objectId as string,
  });
  const { result: count } = await inspector.post('Runtime.callFunctionOn', {
    objectId: objects.objectId as string,
    functionDeclaration: 'function () { return this.length; }',
    returnByValue: true,
  });
  await inspector.post('Runtime.releaseObject', { objectId: objects.objectId as string });
  await inspector.post('Runtime.releaseObject', { objectId: result.objectId as string });
  return count.value as number;
}

/** A collection round that freed less than this counts as quiet. */
const QUIET_ROUND_BYTES = 4096;
const MAX_GC_ROUNDS = 12;

/**
 * Full GCs until two rounds in a row free less than {@link QUIET_ROUND_BYTES}. A single round is
 * not enough after runs: what it frees lets finalizers and stream/socket teardown run, which
 * releases more for the next round — measured here, the 3rd and 4th rounds after a burst of runs
 * still freed 150–250 KiB, which made the first of a checkpoint's samples an outlier that the
 * noise figure then took as its spread.
 */
async function settledGc(): Promise<void> {
  let previous = Number.POSITIVE_INFINITY;
  let quietRounds = 0;
  for (let round = 0; round < MAX_GC_ROUNDS && quietRounds < 2; round += 1) {
    gc?.();
    await new Promise((resolve) => setImmediate(resolve));
    const used = process.memoryUsage().heapUsed;
    quietRounds = previous - used < QUIET_ROUND_BYTES ? quietRounds + 1 : 0;
    previous = used;
  }
}

function usedBySpace(): Record<string, number> {
  const spaces: Record<string, number> = {};
  for (const space of getHeapSpaceStatistics()) spaces[space.space_name] = space.space_used_size;
  return spaces;
}

async function checkpoint(runs: number): Promise<MemoryCheckpoint> {
  const heapSamples: number[] = [];
  const codeSpaceSamples: number[] = [];
  let spaces: Record<string, number> = {};
  for (let sample = 0; sample < SAMPLES; sample += 1) {
    await settledGc();
    heapSamples.push(process.memoryUsage().heapUsed);
    spaces = usedBySpace();
    codeSpaceSamples.push(spaces['code_space'] ?? 0);
  }
  const instances: Record<string, number> = {};
  for (const kind of Object.keys(kinds)) instances[kind] = await liveInstances(kind);
  const abortSignalAnyWeakRefs =
    weakRefPrototype === undefined ? undefined : await liveInstances('AbortSignalAnyWeakRef');
  const resources: Record<string, number> = {};
  for (const resource of process.getActiveResourcesInfo()) {
    resources[resource] = (resources[resource] ?? 0) + 1;
  }
  return {
    runs,
    heapSamples,
    codeSpaceSamples,
    spaces,
    instances,
    abortSignalAnyWeakRefs,
    resources,
    connectionsOpened,
    modelRetries,
  };
}

const server = mcpServer({ url: mcpUrl, name: 'demo', toolFilter: ['read_file', 'get_weather'] });
const agent = new Agent({
  name: 'bench',
  // The agent's default model retries stay on: should a connection still fail, the run goes on
  // (and the retry is counted and reported).
  model: openaiChatModel({ model: 'tool-loop', baseURL: `${modelUrl}/v1` }),
  mcpServers: [server],
});

async function oneRun(): Promise<void> {
  const threadId = crypto.randomUUID();
  const run = agent.execute({ threadId, messages: 'What is in notes.txt?' });
  let toolResults = 0;
  for await (const chunk of run.chunks) {
    if (chunk.type === 'tool.result' && chunk.output.isError !== true) toolResults += 1;
    if (chunk.type === 'model.retry') modelRetries += 1;
  }
  const result = await run.result();
  if (result.status !== 'completed' || toolResults !== 1) {
    const reason =
      result.error === undefined ? '' : `: ${result.error.code} ${result.error.message}`;
    throw new Error(`run ${result.status} with ${toolResults} successful tool results${reason}`);
  }
  // Threads are kept by design; dropping each one leaves only what the runtime itself retains.
  await agent.history.deleteThread(threadId);
}

const checkpoints: MemoryCheckpoint[] = [];
const started = performance.now();
let done = 0;
for (const target of CHECKPOINTS) {
  while (done < target) {
    await oneRun();
    done += 1;
  }
  checkpoints.push(await checkpoint(done));
  process.stderr.write(`[memory-growth] ${done} runs\n`);
}
const ms = performance.now() - started;
await server.close();
inspector.disconnect();
process.stdout.write(`${JSON.stringify({ checkpoints, ms })}\n`);
