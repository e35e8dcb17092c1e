import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Chunk, Item, RunHandle } from '@switchboard/core';
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
  startWorker,
  type EffectsServer,
  type WorkerProcess,
} from './restate-test-support.ts';

let restate: RestateTestServer;
let postgres: PostgresTestServer;
let redis: RedisTestServer;
let model: ScriptedModelServer;
let effects: EffectsServer;
let history: PostgresHistoryStore;
let chunks: RedisChunkLog;
let port: number;
let environment: Record<string, string>;
let worker: WorkerProcess | undefined;

async function restartWorker(): Promise<void> {
  await worker?.kill();
  worker = await startWorker(port, environment);
}

function client() {
  return restateAgent({
    ingressUrl: restate.ingressUrl,
    adminUrl: restate.adminUrl,
    history,
    chunks,
  });
}

async function collect(handle: RunHandle): Promise<Chunk[]> {
  const seen: Chunk[] = [];
  for await (const chunk of handle.chunks) seen.push(chunk);
  return seen;
}

/** A thread's items without what differs between two runs of one script (none expected). */
async function itemsOf(threadId: string): Promise<Item[]> {
  return (await history.loadRuns(threadId)).flatMap((run) => run.items);
}

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
  port = await findFreePort();
  environment = {
    MODEL_URL: model.url,
    DATABASE_URL: postgres.connectionString,
    REDIS_URL: redis.url,
    EFFECTS_URL: effects.url,
  };
  await restartWorker();
  await restate.register(`http://127.0.0.1:${port}`);
}, 120_000);

afterAll(async () => {
  await worker?.kill();
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

describe('an agent run on Restate', () => {
  it('continues on a second worker after kill -9, the journaled side effect done exactly once', async () => {
    const reference = client().execute({ threadId: 'reference', messages: 'pay then hold' });
    const referenceResult = await reference.result();
    expect(referenceResult.status, referenceResult.error?.message).toBe('completed');
    const paidBefore = effects.calls['pay']?.length ?? 0;
    const holdsBefore = effects.calls['hold']?.length ?? 0;

    const held = effects.nextHold();
    const handle = client().execute({ threadId: 'crashed', messages: 'pay then hold' });
    const seen = collect(handle);
    // `pay` ran and its step is journaled (the model was asked again, and asked for `hold`).
    await held;
    await worker?.kill();
    await restartWorker();
    effects.release();

    const result = await handle.result();
    expect(result.status, result.error?.message).toBe('completed');
    // The journaled `pay` never ran again; `hold`, in flight when the worker died, ran again.
    expect(effects.calls['pay']?.length).toBe(paidBefore + 1);
    expect(effects.calls['hold']?.length).toBe(holdsBefore + 2);
    expect(await itemsOf('crashed')).toEqual(await itemsOf('reference'));
    const rows = await history.loadRuns('crashed');
    expect(rows.map((row) => row.status)).toEqual(['completed']);

    const chunkList = await seen;
    expect(chunkList.map((chunk) => chunk.sequence)).toEqual(chunkList.map((_, index) => index));
    expect(chunkList.filter((chunk) => chunk.type === 'run.completed')).toHaveLength(1);
    // Chunks of journaled steps reached readers once: never again on replay.
    const payResults = chunkList.filter(
      (chunk) => chunk.type === 'tool.result' && chunk.callId === 'call_pay',
    );
    expect(payResults).toHaveLength(1);

    // A late reader replays the finished run's chunks.
    const late: Chunk[] = [];
    for await (const chunk of chunks.read('crashed', result.runId)) late.push(chunk);
    expect(late).toEqual(chunkList);
  });

  it('stop() cancels the Restate invocation: the run ends cancelled and every call has one output', async () => {
    const held = effects.nextHold();
    const handle = client().execute({ threadId: 'stopped', messages: 'pay then hold' });
    const seen = collect(handle);
    await held;
    handle.stop();
    // The tool's request is let go only after the stop: the run must not wait for it.
    const result = await handle.result();
    effects.release();
    expect(result.status, result.error?.message).toBe('cancelled');

    const rows = await history.loadRuns('stopped');
    expect(rows.map((row) => row.status)).toEqual(['cancelled']);
    const items = rows.flatMap((row) => row.items);
    const calls = items.filter((item) => item.type === 'function_call');
    expect(calls.map((call) => call.name)).toEqual(['pay', 'hold']);
    for (const call of calls) {
      const outputs = items.filter(
        (item) => item.type === 'function_call_output' && item.callId === call.callId,
      );
      expect(outputs, call.name).toHaveLength(1);
    }
    const chunkList = await seen;
    expect(chunkList.filter((chunk) => chunk.type === 'run.cancelled')).toHaveLength(1);
  });

  it('resumes a paused run when the approval comes after the worker restarted', async () => {
    const handle = client().execute({ threadId: 'approval', messages: 'transfer 7' });
    const paused = await handle.result();
    expect(paused.status, paused.error?.message).toBe('paused');
    expect(paused.interrupts.map((interrupt) => interrupt.mode)).toEqual(['approval']);
    expect(effects.calls['transfer'] ?? []).toEqual([]);

    await restartWorker();

    const resumed = client().execute({
      threadId: 'approval',
      resolutions: [{ callId: 'call_transfer', action: 'approve' }],
    });
    const result = await resumed.result();
    expect(result.status, result.error?.message).toBe('completed');
    expect(result.runId).toBe(paused.runId);
    expect(effects.calls['transfer']).toEqual(['call_transfer']);
    const rows = await history.loadRuns('approval');
    expect(rows.map((row) => row.status)).toEqual(['completed']);
    const outputs = rows[0]?.items.filter((item) => item.type === 'function_call_output');
    expect(outputs).toHaveLength(1);
  });

  it('two resolves of one pause at once: one runs the tool, the other ends run_claimed', async () => {
    const paused = await client()
      .execute({ threadId: 'two-tabs', messages: 'transfer 7' })
      .result();
    expect(paused.status, paused.error?.message).toBe('paused');
    const transfersBefore = effects.calls['transfer']?.length ?? 0;

    const answer = (tab: string) =>
      client()
        .execute({
          threadId: 'two-tabs',
          resolutions: [{ callId: 'call_transfer', action: 'approve' }],
          runContext: { user: tab },
        })
        .result();
    const results = await Promise.all([answer('tab-1'), answer('tab-2')]);
    const winner = results.find((result) => result.status === 'completed');
    const loser = results.find((result) => result.status !== 'completed');
    expect(winner?.runId).toBe(paused.runId);
    expect(loser?.status).toBe('failed');
    expect(loser?.error?.code).toBe('run_claimed');
    // The tool ran once, with the winner's runContext.
    const transfers = (effects.calls['transfer'] ?? []).slice(transfersBefore);
    expect(transfers).toHaveLength(1);
    const winnerTab = results[0]?.status === 'completed' ? 'tab-1' : 'tab-2';
    expect(transfers).toEqual([`call_transfer:${winnerTab}`]);
    const rows = await history.loadRuns('two-tabs');
    expect(rows.map((row) => row.status)).toEqual(['completed']);
    const outputs = rows[0]?.items.filter((item) => item.type === 'function_call_output');
    expect(outputs).toHaveLength(1);
  });

  it('carries runContext to the tools and parentRunId to the new run (a branch)', async () => {
    const first = await client()
      .execute({ threadId: 'carried', messages: 'who am i', runContext: { user: 'ada' } })
      .result();
    expect(first.status, first.error?.message).toBe('completed');
    expect(effects.calls['whoami']).toContain('call_whoami:ada');

    const second = await client().execute({ threadId: 'carried', messages: 'second' }).result();
    expect(second.status, second.error?.message).toBe('completed');
    // A branch from the first run: the new run follows it, not the second.
    const branch = await client()
      .execute({ threadId: 'carried', messages: 'instead', parentRunId: first.runId })
      .result();
    expect(branch.status, branch.error?.message).toBe('completed');
    const rows = await history.loadRuns('carried');
    const parents = Object.fromEntries(rows.map((row) => [row.runId, row.parentRunId]));
    expect(parents[second.runId]).toBe(first.runId);
    expect(parents[branch.runId]).toBe(first.runId);
    // A branch point the thread does not have is refused by the run, writing nothing.
    const unknown = await client()
      .execute({ threadId: 'carried', messages: 'lost', parentRunId: 'no-such-run' })
      .result();
    expect(unknown.status).toBe('failed');
    expect(unknown.error?.code).toBe('invalid_input');
    expect(await history.loadRuns('carried')).toHaveLength(3);
  });
});
