/**
 * Durable runs on Restate against the in-process loop (docs/scale.md, "Measured"): runs per
 * second and time per step with the same scripted model, tools and PostgreSQL history, in
 * process vs 1 and 2 Restate workers; and the time to recover a run whose worker was killed.
 * Not part of `npm run bench` (it starts restate-server, PostgreSQL and Redis):
 *
 *   node --conditions=@switchboard/source --import tsx bench/durable/restate-runs.ts
 */
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
} from '../../packages/restate/src/restate-test-support.ts';

const RUNS = Number(process.env.RUNS ?? 60);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 10);
/** Steps of one "pay then hold" run: 3 model calls and 2 tool calls. */
const STEPS_PER_RUN = 5;

type Execute = (threadId: string) => Promise<string>;

async function measure(
  label: string,
  execute: Execute,
): Promise<{ runsPerSecond: number; msPerStep: number }> {
  await execute(`${label}-warmup`);
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < RUNS) {
        const index = next++;
        const status = await execute(`${label}-${index}`);
        if (status !== 'completed') throw new Error(`${label} run ${index}: ${status}`);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  // Sequential latency per step: one run at a time.
  const sequentialStart = performance.now();
  for (let index = 0; index < 10; index += 1) await execute(`${label}-sequential-${index}`);
  const msPerStep = (performance.now() - sequentialStart) / 10 / STEPS_PER_RUN;
  return { runsPerSecond: RUNS / seconds, msPerStep };
}

const [restate, postgres, redis, model, effects] = await Promise.all([
  startRestateServer(),
  startPostgresServer(),
  startRedisServer(),
  startScriptedModelServer({ script: durableScript }),
  startEffectsServer(),
]);
const history = new PostgresHistoryStore({ connectionString: postgres.connectionString });
const chunks = new RedisChunkLog({ url: redis.url, pollMs: 200 });
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
      execute: async (_a, c) => report('pay', c.callId),
    }),
    tool({
      name: 'hold',
      description: 'hold',
      input: z.object({}),
      execute: async (_a, c) => report('hold', c.callId),
    }),
  ],
});
const workers = [];
const results: Record<string, { runsPerSecond: number; msPerStep: number }> = {};
try {
  results['in-process'] = await measure(
    'in-process',
    async (threadId) =>
      (await inProcess.execute({ threadId, messages: 'pay then hold' }).result()).status,
  );
  const ports = [await findFreePort(), await findFreePort()];
  workers.push(...(await Promise.all(ports.map((port) => startWorker(port, environment)))));
  const client = restateAgent({
    ingressUrl: restate.ingressUrl,
    adminUrl: restate.adminUrl,
    history,
    chunks,
  });
  const viaRestate: Execute = async (threadId) =>
    (await client.execute({ threadId, messages: 'pay then hold' }).result()).status;

  await restate.register(`http://127.0.0.1:${ports[0]}`);
  results['restate, 1 worker'] = await measure('restate-1', viaRestate);

  const proxy = await startRoundRobinProxy(ports);
  await restate.register(`http://127.0.0.1:${proxy.port}`);
  results['restate, 2 workers'] = await measure('restate-2', viaRestate);

  // Recovery: kill the worker serving a run while its `hold` step runs, start another.
  await proxy.close();
  await restate.register(`http://127.0.0.1:${ports[0]}`);
  const recoveries: number[] = [];
  for (let index = 0; index < 3; index += 1) {
    const held = effects.nextHold();
    const handle = client.execute({ threadId: `recover-${index}`, messages: 'pay then hold' });
    await held;
    const killedAt = performance.now();
    await workers[0]?.kill();
    effects.release();
    workers[0] = await startWorker(ports[0] ?? 0, environment);
    const result = await handle.result();
    if (result.status !== 'completed') throw new Error(`recovery ${index}: ${result.status}`);
    recoveries.push(performance.now() - killedAt);
  }
  console.log(
    JSON.stringify(
      { runs: RUNS, concurrency: CONCURRENCY, results, recoveryMs: recoveries },
      null,
      2,
    ),
  );
  await proxy.close().catch(() => undefined);
} finally {
  await Promise.all(workers.map((worker) => worker.kill()));
  await chunks.close();
  await history.close();
  await Promise.all([
    restate.close(),
    postgres.close(),
    redis.close(),
    model.close(),
    effects.close(),
  ]);
}
