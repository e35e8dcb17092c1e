import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assistantMessage,
  makeRun,
  userMessage,
} from '../../core/src/history/history-store-contract.ts';
import { PostgresTestDatabase } from './postgres-test-support.ts';

let database: PostgresTestDatabase;
beforeAll(async () => {
  database = await PostgresTestDatabase.start();
}, 60_000);
afterAll(async () => {
  await database.dispose();
});

/**
 * A pool that counts what its clients make the server write: the rows PostgreSQL reports for
 * every INSERT, UPDATE and DELETE (`rowCount`), and the bytes of the parameters sent with them.
 */
function countingPool(connectionString: string) {
  const written = { rows: 0, bytes: 0 };
  const pool = new pg.Pool({ connectionString });
  pool.on('error', () => undefined);
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (
      text: string,
      values?: unknown[],
    ) => Promise<pg.QueryResult>;
    (client as unknown as { query: typeof query }).query = async (text, values) => {
      const result = await query(text, values);
      if (['INSERT', 'UPDATE', 'DELETE'].includes(result.command)) {
        written.rows += result.rowCount ?? 0;
        written.bytes += JSON.stringify(values ?? []).length;
      }
      return result;
    };
  });
  return { pool, written };
}

describe('PostgresHistoryStore appends', () => {
  it('writes O(new items): the same rows and bytes per turn however long the run and thread', async (context) => {
    const { pool, written } = countingPool(database.connectionString);
    context.onTestFinished(() => pool.end());
    const store = database.store(database.freshSchema(), pool);
    await store.listThreads(); // creates the tables: not part of any append
    const turn = (index: number) => [
      userMessage(`question ${index}`),
      assistantMessage(`answer ${index} `.padEnd(200, '.')),
    ];

    // Runs appended to one thread: each new run costs the same, whatever came before.
    const perRun: { rows: number; bytes: number }[] = [];
    for (let index = 0; index < 30; index += 1) {
      const before = { ...written };
      const run = makeRun(
        'long',
        `run-${String(index).padStart(3, '0')}`,
        1_000 + index,
        turn(index),
      );
      expect(await store.compareAndSetRun(run, 0)).toMatchObject({ written: true });
      perRun.push({ rows: written.rows - before.rows, bytes: written.bytes - before.bytes });
    }
    // Thread row + run row + 2 item rows, every time.
    expect(perRun.map((cost) => cost.rows)).toEqual(perRun.map(() => 4));
    // Bytes differ only by the digits of the run's index, never with the thread's length.
    const runBytes = perRun.map((cost) => cost.bytes);
    expect(Math.max(...runBytes) - Math.min(...runBytes)).toBeLessThanOrEqual(8);

    // One run growing turn by turn (the journal's compare-and-set per turn): each write stores
    // only the turn's two new items, not the run so far.
    let items = turn(0);
    let version = 0;
    const growing = () => makeRun('long', 'growing', 5_000, items, { status: 'running' });
    const perTurn: { rows: number; bytes: number }[] = [];
    for (let index = 1; index <= 30; index += 1) {
      const before = { ...written };
      const result = await store.compareAndSetRun(growing(), version);
      if (!result.written) throw new Error('compare-and-set lost to nobody');
      version = result.version;
      perTurn.push({ rows: written.rows - before.rows, bytes: written.bytes - before.bytes });
      items = [...items, ...turn(index)];
    }
    expect(perTurn.slice(1).map((cost) => cost.rows)).toEqual(perTurn.slice(1).map(() => 4));
    // Bytes vary only with the digits of the turn's index, never with the items already stored:
    // the 30th write sends as much as the 2nd.
    const bytes = perTurn.slice(1).map((cost) => cost.bytes);
    expect(Math.max(...bytes) - Math.min(...bytes)).toBeLessThanOrEqual(8);

    // What was stored reads back whole.
    const runs = await store.loadRuns('long');
    expect(runs).toHaveLength(31);
    expect(runs.at(-1)?.items).toHaveLength(items.length - 2);
    expect(runs.at(-1)?.version).toBe(30);
    await database.closeStores();
  });

  it('replaces the stored items when a write does not extend them', async () => {
    const store = database.store(database.freshSchema());
    await store.saveRun(makeRun('t', 'r', 1_000, [userMessage('one'), assistantMessage('two')]));
    await store.saveRun(makeRun('t', 'r', 1_000, [userMessage('one'), assistantMessage('TWO')]));
    expect(await store.loadItems('t')).toEqual([userMessage('one'), assistantMessage('TWO')]);
    await store.saveRun(makeRun('t', 'r', 1_000, [userMessage('only')]));
    expect(await store.loadItems('t')).toEqual([userMessage('only')]);
    await store.saveRun(makeRun('t', 'r', 1_000, []));
    expect(await store.loadRuns('t')).toEqual([makeRun('t', 'r', 1_000, [])]);
    await database.closeStores();
  });
});
