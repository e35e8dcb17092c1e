import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSwitchboardError, type RunRecord } from '@switchboard/core';
import pg from 'pg';
import { PostgresTestDatabase } from './postgres-test-support.ts';

// Which failures the store calls transient (`history_error` with `details.transient`: nothing
// written, the same call may work later), against a real PostgreSQL on 127.0.0.1.
let database: PostgresTestDatabase;
beforeAll(async () => {
  database = await PostgresTestDatabase.start();
}, 60_000);
afterAll(async () => {
  await database.dispose();
});

const run = (runId: string): RunRecord => ({
  runId,
  threadId: 't1',
  status: 'completed',
  items: [{ type: 'message', role: 'user', content: 'Hello' }],
  createdAt: 1_000,
  updatedAt: 1_001,
});

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return await promise.then(
    () => expect.unreachable('the call should fail'),
    (error: unknown) => error,
  );
}

describe('PostgresHistoryStore transient failures', () => {
  it('no free connection within the pool limit is transient, and the call works once one is free', async () => {
    const pool = new pg.Pool({
      connectionString: database.connectionString,
      max: 1,
      connectionTimeoutMillis: 300,
    });
    const store = database.store(database.freshSchema(), pool);
    await store.listThreads();
    const busy = await pool.connect();
    const error = await failureOf(store.listThreads());
    expect(isSwitchboardError(error, 'history_error')).toBe(true);
    expect(isSwitchboardError(error, 'history_error') && error.details).toEqual({
      transient: true,
    });
    busy.release();
    await expect(store.listThreads()).resolves.toEqual([]);
    await database.closeStores();
    await pool.end();
  });

  it('a lock wait PostgreSQL ended (lock_timeout) is transient and wrote nothing', async () => {
    const schema = database.freshSchema();
    const pool = new pg.Pool({ connectionString: database.connectionString, lock_timeout: 300 });
    const store = database.store(schema, pool);
    await store.saveRun(run('r0'));
    // Another "process" writes run r1 and holds its lock.
    const other = new pg.Client({ connectionString: database.connectionString });
    await other.connect();
    await other.query('BEGIN');
    await other.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', ['t1', 'r1']);
    const error = await failureOf(store.saveRun(run('r1')));
    expect(isSwitchboardError(error, 'history_error') && error.details).toEqual({
      transient: true,
    });
    await other.query('ROLLBACK');
    await other.end();
    expect((await store.loadRuns('t1')).map((row) => row.runId)).toEqual(['r0']);
    await store.saveRun(run('r1'));
    expect((await store.loadRuns('t1')).map((row) => row.runId)).toEqual(['r0', 'r1']);
    await database.closeStores();
    await pool.end();
  });

  it('a statement PostgreSQL refused for what it holds is not transient', async () => {
    const schema = database.freshSchema();
    const pool = new pg.Pool({ connectionString: database.connectionString });
    const store = database.store(schema, pool);
    await store.saveRun(run('r0'));
    // A NUL character cannot be stored in a json value: the same write would fail again.
    const error = await failureOf(
      store.saveRun({
        ...run('r1'),
        items: [{ type: 'message', role: 'user', content: 'a\u0000b' }],
      }),
    );
    expect(isSwitchboardError(error, 'history_error')).toBe(true);
    expect(isSwitchboardError(error, 'history_error') && error.details).toEqual({
      transient: false,
    });
    await database.closeStores();
    await pool.end();
  });
});
