import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Chunk } from '@switchboard/core';
import {
  findFreePort,
  startPostgresServer,
  startRedisServer,
  startRestateServer,
  startScriptedModelServer,
  type PostgresTestServer,
  type RedisTestServer,
  type RestateTestServer,
  type ScriptedModelServer,
} from '@switchboard/fixtures';
import { PostgresHistoryStore } from '@switchboard/postgres';
import { RedisChunkLog } from './redis-chunk-log.ts';
import { restateAgent } from './restate-agent-client.ts';
import {
  durableScript,
  startEffectsServer,
  startRoundRobinProxy,
  startWorker,
  type EffectsServer,
  type WorkerProcess,
} from './restate-test-support.ts';

const RUNS = 200;
/**
 * Runs in flight at once. Bounded: with all 200 at once on this 2-core machine, PostgreSQL
 * writes outlast the store's time limit and runs fail with `history_error` (the store's honest
 * answer to overload, not cross-talk).
 */
const IN_FLIGHT = 50;

let restate: RestateTestServer;
let postgres: PostgresTestServer;
let redis: RedisTestServer;
let model: ScriptedModelServer;
let effects: EffectsServer;
let history: PostgresHistoryStore;
let chunks: RedisChunkLog;
let workers: WorkerProcess[] = [];
let proxy: { port: number; close(): Promise<void> } | undefined;

beforeAll(async () => {
  [restate, postgres, redis, model, effects] = await Promise.all([
    startRestateServer(),
    startPostgresServer(),
    startRedisServer(),
    startScriptedModelServer({ script: durableScript }),
    startEffectsServer(),
  ]);
  history = new PostgresHistoryStore({ connectionString: postgres.connectionString });
  chunks = new RedisChunkLog({ url: redis.url, pollMs: 200 });
  const environment = {
    MODEL_URL: model.url,
    DATABASE_URL: postgres.connectionString,
    REDIS_URL: redis.url,
    EFFECTS_URL: effects.url,
  };
  const ports = [await findFreePort(), await findFreePort()];
  workers = await Promise.all(ports.map((port) => startWorker(port, environment)));
  const started = await startRoundRobinProxy(ports);
  proxy = started;
  await restate.register(`http://127.0.0.1:${started.port}`);
}, 120_000);

afterAll(async () => {
  await proxy?.close();
  await Promise.all(workers.map((worker) => worker.kill()));
  await chunks?.close();
  await history?.close();
  await Promise.all([
    restate?.close(),
    postgres?.close(),
    redis?.close(),
    model?.close(),
    effects?.close(),
  ]);
});

describe('two Restate workers', () => {
  it(`share ${RUNS} runs, ${IN_FLIGHT} at a time, with no cross-talk`, async () => {
    const agent = restateAgent({
      ingressUrl: restate.ingressUrl,
      adminUrl: restate.adminUrl,
      history,
      chunks,
    });
    const one = async (index: number) => {
      const handle = agent.execute({ threadId: `thread-${index}`, messages: `run ${index}` });
      const seen: Chunk[] = [];
      for await (const chunk of handle.chunks) seen.push(chunk);
      return { index, result: await handle.result(), seen };
    };
    const runs: Awaited<ReturnType<typeof one>>[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < RUNS) runs.push(await one(next++));
      }),
    );
    expect(runs).toHaveLength(RUNS);
    for (const { index, result, seen } of runs) {
      expect(result.status, result.error?.message).toBe('completed');
      const text = seen.flatMap((chunk) => (chunk.type === 'text.done' ? [chunk.text] : []));
      expect(text).toEqual([`echo run ${index}`]);
      expect(new Set(seen.map((chunk) => chunk.runId))).toEqual(new Set([result.runId]));
      const rows = await history.loadRuns(`thread-${index}`);
      expect(rows.flatMap((row) => row.items)).toEqual([
        { type: 'message', role: 'user', content: `run ${index}` },
        { type: 'message', role: 'assistant', content: `echo run ${index}` },
      ]);
    }
  });
});
