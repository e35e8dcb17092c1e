import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeHistoryStore } from '../../core/src/history/history-store-contract.ts';
import { describeRunClaims } from '../../core/src/agent/run-claims-contract.ts';
import { PostgresTestDatabase } from './postgres-test-support.ts';
import { PostgresHistoryStore } from './postgres-history-store.ts';
import { isSwitchboardError } from '@switchboard/core';
import pg from 'pg';

// One PostgreSQL server for this file (started on 127.0.0.1, stopped afterwards); a fresh schema
// per test.
let database: PostgresTestDatabase;
beforeAll(async () => {
  database = await PostgresTestDatabase.start();
}, 60_000);
afterAll(async () => {
  await database.dispose();
});

describeHistoryStore('PostgresHistoryStore', () => {
  const schema = database.freshSchema();
  return {
    store: database.store(schema),
    reopen: () => database.store(schema),
    dispose: () => database.closeStores(),
  };
});

describeRunClaims('PostgresHistoryStore', async () => {
  const schema = database.freshSchema();
  const first = database.store(schema);
  const second = database.store(schema);
  // Both "processes" are up before the race (connected, schema checked), as two running servers
  // are: otherwise the second's first connection makes it arrive after the first has finished,
  // and it sees a completed run (`not_paused`) instead of racing for the claim.
  await Promise.all([first.listThreads(), second.listThreads()]);
  return { first, second, dispose: () => database.closeStores() };
});

describe('PostgresHistoryStore schema', () => {
  it('creates its tables once when many stores start on an empty schema at once', async () => {
    const schema = database.freshSchema();
    const stores = Array.from({ length: 6 }, () => database.store(schema));
    const listed = await Promise.all(stores.map((store) => store.listThreads()));
    expect(listed).toEqual(stores.map(() => []));
    await database.closeStores();
  });

  it('upgrades a version 1 schema: old threads keep their runs, can store a branch and read their changes', async () => {
    const schema = database.freshSchema();
    const pool = new pg.Pool({ connectionString: database.connectionString });
    const old = database.store(schema, pool);
    await old.saveRun({
      runId: 'r1',
      threadId: 't1',
      status: 'completed',
      items: [{ type: 'message', role: 'user', content: 'Hello' }],
      createdAt: 1_000,
      updatedAt: 1_001,
    });
    // Back to what version 1 wrote: no branch column, no change numbers, version 1.
    await pool.query(`ALTER TABLE "${schema}".switchboard_threads DROP COLUMN branch_selection`);
    await pool.query(`ALTER TABLE "${schema}".switchboard_threads DROP COLUMN changes`);
    await pool.query(`ALTER TABLE "${schema}".switchboard_runs DROP COLUMN change`);
    await pool.query(`UPDATE "${schema}".switchboard_schema_version SET version = 1`);

    const upgraded = database.store(schema);
    expect((await upgraded.loadRuns('t1')).map((run) => run.runId)).toEqual(['r1']);
    expect(await upgraded.loadBranchSelection('t1')).toBeUndefined();
    await upgraded.selectBranch('t1', { leafRunId: 'r1', selectedAt: 2_000 });
    expect(await upgraded.loadBranchSelection('t1')).toEqual({
      leafRunId: 'r1',
      selectedAt: 2_000,
    });
    const { rows } = await pool.query<{ version: number }>(
      `SELECT version FROM "${schema}".switchboard_schema_version`,
    );
    expect(rows).toEqual([{ version: 3 }]);
    // Version 3: the old thread's rows read whole first, then only what is written since.
    const whole = await upgraded.loadRunChanges('t1', undefined);
    expect(whole).toMatchObject({ complete: true, runs: [{ runId: 'r1' }] });
    await upgraded.saveRun({
      runId: 'r2',
      threadId: 't1',
      status: 'completed',
      items: [{ type: 'message', role: 'user', content: 'Again' }],
      createdAt: 2_000,
      updatedAt: 2_001,
    });
    const changes = await upgraded.loadRunChanges('t1', whole.cursor);
    expect(changes).toMatchObject({ complete: false, runs: [{ runId: 'r2' }] });
    await database.closeStores();
    await pool.end();
  });

  it('refuses a schema name that is not a plain identifier', () => {
    const make = () =>
      new PostgresHistoryStore({
        connectionString: database.connectionString,
        schema: 'x"; DROP TABLE y; --',
      });
    expect(make).toThrow(expect.objectContaining({ code: 'invalid_input' }));
  });

  it('fails with history_error when the database cannot be reached', async () => {
    // A port nothing listens on: the connection is refused.
    const store = new PostgresHistoryStore({
      connectionString: 'postgres://postgres@127.0.0.1:1/postgres',
    });
    const error: unknown = await store.listThreads().catch((failure: unknown) => failure);
    expect(isSwitchboardError(error, 'history_error')).toBe(true);
    await store.close();
  });
});
