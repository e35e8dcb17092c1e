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
  it(`share ${RUNS} runs started all at once with no cross-talk`, async () => {
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
    // Every run is sent before any has finished: the workers, PostgreSQL pools and the scripted
    // model see the whole burst at once (a pool wait beyond its limit is retried as a Restate
    // step retry, not a failed run).
    const runs = await Promise.all(Array.from({ length: RUNS }, (_, index) => one(index)));
    const failures = runs.flatMap(({ index, result }) =>
      result.status === 'completed'
        ? []
        : [
            `run ${index}: ${result.status} ${result.error?.code ?? ''} ${result.error?.message ?? ''}`,
          ],
    );
    expect(failures).toEqual([]);
    for (const { index, result, seen } of runs) {
      const text = seen.flatMap((chunk) => (chunk.type === 'text.done' ? [chunk.text] : []));
      expect(text).toEqual([`echo run ${index}`]);
      expect(new Set(seen.map((chunk) => chunk.runId))).toEqual(new Set([result.runId]));
      expect(seen.map((chunk) => chunk.sequence)).toEqual(seen.map((_, place) => place));
      const rows = await history.loadRuns(`thread-${index}`);
      expect(rows.flatMap((row) => row.items)).toEqual([
        { type: 'message', role: 'user', content: `run ${index}` },
        { type: 'message', role: 'assistant', content: `echo run ${index}` },
      ]);
    }
  });
});
