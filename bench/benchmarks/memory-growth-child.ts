/**
 * Child process of benchmark 10, run as `node --expose-gc --import tsx memory-growth-child.ts`
 * with `BENCH_MCP_URL` and `BENCH_MODEL_URL`. Runs agent runs with one MCP tool call each and,
 * at checkpoints, reports the heap after full garbage collection and the number of live
 * instances of the objects a leak would pile up (abort signals, streams, MCP sessions, call
 * timers, run channels). Prints one JSON line on stdout.
 */
import { Session } from 'node:inspector/promises';
import { Agent, mcpServer } from '@switchboard/core';
import { openaiChatModel } from '@switchboard/core/openai';
import { ReplayChannel } from '../../packages/core/src/internal/replay-channel.ts';
import { CallTimer } from '../../packages/core/src/mcp/call-timer.ts';
import { McpSession } from '../../packages/core/src/mcp/connection/mcp-session.ts';

/** One checkpoint: heap samples and live instance counts after `runs` runs. */
export interface MemoryCheckpoint {
  runs: number;
  /** `heapUsed` after full GCs, repeated, in bytes. */
  heapSamples: number[];
  /** Live instances per kind (after a full GC). */
  instances: Record<string, number>;
  /** `process.getActiveResourcesInfo()` counted by type (timers, sockets, …). */
  resources: Record<string, number>;
}

const CHECKPOINTS = (process.env['BENCH_CHECKPOINTS'] ?? '10,100,250,500,750,1000')
  .split(',')
  .map(Number);
const SAMPLES = 5;

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');
const mcpUrl = process.env['BENCH_MCP_URL'];
const modelUrl = process.env['BENCH_MODEL_URL'];
if (mcpUrl === undefined || modelUrl === undefined) {
  throw new Error('BENCH_MCP_URL and BENCH_MODEL_URL are required');
}

// Reachable from the inspector's global scope, for `Runtime.queryObjects`.
const kinds: Record<string, { prototype: object }> = {
  AbortController,
  AbortSignal,
  ReadableStream,
  McpSession,
  CallTimer,
  ReplayChannel,
};
(globalThis as { benchKinds?: typeof kinds }).benchKinds = kinds;

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

async function fullGc(): Promise<void> {
  for (let round = 0; round < 3; round += 1) {
    gc?.();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function checkpoint(runs: number): Promise<MemoryCheckpoint> {
  const heapSamples: number[] = [];
  for (let sample = 0; sample < SAMPLES; sample += 1) {
    await fullGc();
    heapSamples.push(process.memoryUsage().heapUsed);
  }
  const instances: Record<string, number> = {};
  for (const kind of Object.keys(kinds)) instances[kind] = await liveInstances(kind);
  const resources: Record<string, number> = {};
  for (const resource of process.getActiveResourcesInfo()) {
    resources[resource] = (resources[resource] ?? 0) + 1;
  }
  return { runs, heapSamples, instances, resources };
}

const server = mcpServer({ url: mcpUrl, name: 'demo', toolFilter: ['read_file', 'get_weather'] });
const agent = new Agent({
  name: 'bench',
  // The SDK's default retries: a checkpoint idles the keep-alive connection long enough for the
  // server to close it, and the first request after it may meet the closed socket.
  model: openaiChatModel({ model: 'tool-loop', baseURL: `${modelUrl}/v1` }),
  mcpServers: [server],
});

async function oneRun(): Promise<void> {
  const threadId = crypto.randomUUID();
  const run = agent.execute({ threadId, messages: 'What is in notes.txt?' });
  let toolResults = 0;
  for await (const chunk of run.chunks) {
    if (chunk.type === 'tool.result' && chunk.output.isError !== true) toolResults += 1;
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
