import '../../packages/restate/src/promise-with-resolvers-test-support.ts';
import { performance } from 'node:perf_hooks';
import { Agent, tool } from '@switchboard/core';
import { openaiChatModel } from '@switchboard/core/openai';
import {
  findFreePort,
  startPostgresServer,
  startRedisServer,
  startRestateServer,
  startScriptedModelServer,
} from '@switchboard/fixtures';
import { PostgresHistoryStore } from '@switchboard/postgres';
import { z } from 'zod';
import { RedisChunkLog } from '../../packages/restate/src/redis-chunk-log.ts';
import { restateAgent } from '../../packages/restate/src/restate-agent-client.ts';
import {
  durableScript,
  startEffectsServer,
  startRoundRobinProxy,
  startWorker,
  type WorkerProcess,
} from '../../packages/restate/src/restate-test-support.ts';
import type { Benchmark } from '../benchmark.ts';
import type { Figure } from '../report.ts';
import { summarize } from '../stats.ts';

/** Runs per side for throughput, how many in flight, runs one at a time, killed-worker recoveries. */
const RUNS = 20;
const IN_FLIGHT = 5;
const SEQUENTIAL_RUNS = 5;
const RECOVERIES = 2;
/** Steps of one "pay then hold" run: 3 model calls and 2 tool calls. */
const STEPS_PER_RUN = 5;
/** The whole row, servers and workers included, ends within this (ms). */
const TIME_LIMIT_MS = 90_000;

type Execute = (threadId: string) => Promise<string>;

interface Side {
  runsPerSecond: number;
  /** ms per step, one run at a time: one value per run. */
  msPerStep: number[];
}

async function measure(label: string, execute: Execute): Promise<Side> {
  const check = async (threadId: string) => {
    const status = await execute(threadId);
    if (status !== 'completed') throw new Error(`${label} ${threadId}: ${status}`);
  };
  await check(`${label}-warmup`);
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < RUNS) await check(`${label}-${next++}`);
    }),
  );
  const runsPerSecond = RUNS / ((performance.now() - start) / 1000);
  const msPerStep: number[] = [];
  for (let index = 0; index < SEQUENTIAL_RUNS; index += 1) {
    const runStart = performance.now();
    await check(`${label}-sequential-${index}`);
    msPerStep.push((performance.now() - runStart) / STEPS_PER_RUN);
  }
  return { runsPerSecond, msPerStep };
}

/** Rejects once `ms` passed; `clear` stops the timer. */
function deadline(ms: number): { expired: Promise<never>; clear(): void } {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`over the row's ${ms / 1000} s limit`)), ms);
  });
  expired.catch(() => undefined);
  return { expired, clear: () => clearTimeout(timer) };
}

/**
 * Durable runs on Restate against the in-process loop (issue 16, "Measured"): the same
 * scripted model, tools and PostgreSQL history; runs per second and time per step in process,
 * with 1 Restate worker and with 2 (a round-robin proxy in front); and the time from kill -9 of
 * a worker mid-run to the run completed on a new one. Starts its own restate-server (from
 * node_modules), PostgreSQL and Redis on 127.0.0.1, workers as child processes.
 */
export const restateRunsBenchmark: Benchmark = {
  id: 14,
  key: 'restate-runs',
  title: 'Durable runs on Restate: runs/s, per-step overhead (1 and 2 workers), recovery',
  baseline: 'the in-process `Agent` loop on the same scripted model, tools and PostgreSQL history',
  target: 'reported (no target: the cost of durability, and recovery time, as measured)',
  async run({ log }) {
    const limit = deadline(TIME_LIMIT_MS);
    const started = new Started();
    try {
      return await Promise.race([limit.expired, measureAll(log, started)]);
    } finally {
      limit.clear();
      await started.closeAll();
    }
  },
};

/**
 * What the row started, to stop at its end — also what the measurement starts after the time
 * limit ran out (it goes on in the background until its next step): stopped at once.
 */
class Started {
  #closed = false;
  readonly #workers = new Map<number, WorkerProcess>();
  readonly #closers: (() => Promise<void>)[] = [];

  /** Keeps `close` for the end (run in reverse order), or runs it now when the row ended. */
  async add(close: () => Promise<void>): Promise<void> {
    if (this.#closed) {
      await close().catch(() => undefined);
      throw new Error('the row already ended');
    }
    this.#closers.push(close);
  }

  /** The worker serving `port` now (a restarted one replaces the killed one). */
  async worker(port: number, worker: WorkerProcess): Promise<void> {
    if (this.#closed) {
      await worker.kill();
      throw new Error('the row already ended');
    }
    this.#workers.set(port, worker);
  }

  async kill(port: number): Promise<void> {
    await this.#workers.get(port)?.kill();
  }

  async closeAll(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#workers.values()].map((worker) => worker.kill()));
    for (const close of this.#closers.splice(0).reverse()) await close().catch(() => undefined);
  }
}

async function measureAll(log: (message: string) => void, started: Started) {
  log('starting restate-server, PostgreSQL, Redis, the scripted model');
  const [restate, postgres, redis, model, effects] = await Promise.all([
    startRestateServer(),
    startPostgresServer(),
    startRedisServer(),
    startScriptedModelServer({ script: durableScript }),
    startEffectsServer(),
  ]);
  for (const server of [restate, postgres, redis, model, effects]) {
    await started.add(() => server.close());
  }
  const history = new PostgresHistoryStore({ connectionString: postgres.connectionString });
  const chunks = new RedisChunkLog({ url: redis.url, pollMs: 200 });
  await started.add(() => history.close());
  await started.add(() => chunks.close());
  const environment = {
    MODEL_URL: model.url,
    DATABASE_URL: postgres.connectionString,
    REDIS_URL: redis.url,
    EFFECTS_URL: effects.url,
  };
  const report = async (path: string, callId: string) =>
    await (
      await fetch(`${effects.url}/${path}`, { method: 'POST', body: JSON.stringify({ callId }) })
    ).text();
  const inProcess = new Agent({
    name: 'in-process',
    model: openaiChatModel({
      baseURL: `${model.url}/v1`,
      apiKey: 'x',
      model: 'scripted',
      maxRetries: 0,
    }),
    history,
    tools: [
      tool({
        name: 'pay',
        description: 'pay',
        input: z.object({ amount: z.number() }),
        execute: async (_args, context) => report('pay', context.callId),
      }),
      tool({
        name: 'hold',
        description: 'hold',
        input: z.object({}),
        execute: async (_args, context) => report('hold', context.callId),
      }),
    ],
  });
  log('in process');
  const local = await measure(
    'in-process',
    async (threadId) =>
      (await inProcess.execute({ threadId, messages: 'pay then hold' }).result()).status,
  );

  log('starting two workers');
  const ports = [await findFreePort(), await findFreePort()];
  await Promise.all(
    ports.map(async (port) => await started.worker(port, await startWorker(port, environment))),
  );
  const client = restateAgent({
    ingressUrl: restate.ingressUrl,
    adminUrl: restate.adminUrl,
    history,
    chunks,
  });
  const viaRestate: Execute = async (threadId) =>
    (await client.execute({ threadId, messages: 'pay then hold' }).result()).status;
  await restate.register(`http://127.0.0.1:${ports[0]}`);
  log('Restate, 1 worker');
  const one = await measure('restate-1', viaRestate);

  const proxy = await startRoundRobinProxy(ports);
  await started.add(() => proxy.close());
  await restate.register(`http://127.0.0.1:${proxy.port}`);
  log('Restate, 2 workers');
  const two = await measure('restate-2', viaRestate);

  // Recovery: kill -9 the worker while the run's `hold` step runs, start another in its place.
  await restate.register(`http://127.0.0.1:${ports[0]}`);
  const recoveries: number[] = [];
  for (let index = 0; index < RECOVERIES; index += 1) {
    log(`recovery ${index + 1} of ${RECOVERIES}`);
    const held = effects.nextHold();
    const handle = client.execute({ threadId: `recover-${index}`, messages: 'pay then hold' });
    await held;
    const killedAt = performance.now();
    await started.kill(ports[0] ?? 0);
    effects.release();
    await started.worker(ports[0] ?? 0, await startWorker(ports[0] ?? 0, environment));
    const result = await handle.result();
    if (result.status !== 'completed') throw new Error(`recovery ${index}: ${result.status}`);
    recoveries.push(performance.now() - killedAt);
  }

  const localStep = summarize(local.msPerStep).median;
  const overhead = (side: Side) => summarize(side.msPerStep.map((ms) => ms - localStep));
  const figures: Figure[] = [
    { label: 'Runs per second, in process', value: local.runsPerSecond, unit: 'runs/s' },
    { label: 'Runs per second, Restate, 1 worker', value: one.runsPerSecond, unit: 'runs/s' },
    { label: 'Runs per second, Restate, 2 workers', value: two.runsPerSecond, unit: 'runs/s' },
    { label: 'Time per step, in process', value: summarize(local.msPerStep), unit: 'ms' },
    { label: 'Time per step, Restate, 1 worker', value: summarize(one.msPerStep), unit: 'ms' },
    { label: 'Time per step, Restate, 2 workers', value: summarize(two.msPerStep), unit: 'ms' },
    {
      label: 'Overhead per step over in process, 1 worker',
      value: overhead(one),
      unit: 'ms',
    },
    {
      label: 'Overhead per step over in process, 2 workers',
      value: overhead(two),
      unit: 'ms',
    },
    {
      label: 'Recovery: kill -9 of the worker → run completed on a new worker',
      value: summarize(recoveries),
      unit: 'ms',
    },
  ];
  return {
    verdict: 'reported' as const,
    headline:
      `${local.runsPerSecond.toFixed(1)} / ${one.runsPerSecond.toFixed(1)} / ${two.runsPerSecond.toFixed(1)} runs/s ` +
      `(in process / 1 / 2 workers); +${overhead(one).median.toFixed(0)} ms per step (1 worker); ` +
      `recovery ${(summarize(recoveries).median / 1000).toFixed(1)} s`,
    figures,
    method:
      `Each run is "pay then hold": 3 model calls to the scripted model server and 2 local tool ` +
      `calls, PostgreSQL history on every side. Per side: 1 warm-up run, ${RUNS} runs with ` +
      `${IN_FLIGHT} in flight (runs/s), then ${SEQUENTIAL_RUNS} runs one at a time (time per ` +
      `step = run time / ${STEPS_PER_RUN}; overhead = minus the in-process median). Restate: ` +
      '`restateAgent` → restate-server → `agentObject` workers (child processes); 2 workers ' +
      `behind a round-robin TCP proxy. Recovery (${RECOVERIES}×): worker killed (SIGKILL) while ` +
      'the run’s `hold` step runs, a new worker started on its port; time from the kill to the ' +
      'run completed (the new worker’s start included).',
    notes: [
      `Bounded: the row fails as "not measured" after ${TIME_LIMIT_MS / 1000} s. Every server ` +
        'and worker runs on this machine, so two workers share its cores: read the ratios.',
    ],
  };
}
