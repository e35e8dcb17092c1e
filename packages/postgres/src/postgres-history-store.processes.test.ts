import { spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRun, userMessage } from '../../core/src/history/history-store-contract.ts';
import { PostgresTestDatabase } from './postgres-test-support.ts';

const STORE_URL = pathToFileURL(
  fileURLToPath(new URL('./postgres-history-store.ts', import.meta.url)),
);
const RUNS = 40;

/**
 * One worker process: claims every paused run (`paused` → `running` with its own lease, version
 * 1 → 2), all at once, as a server resuming runs would. Prints the runs it won, as JSON.
 */
const WORKER = `
const { PostgresHistoryStore } = await import(process.env.STORE_URL);
const store = new PostgresHistoryStore({ connectionString: process.env.DATABASE, schema: process.env.SCHEMA });
const name = process.env.NAME;
await store.listThreads();
const results = await Promise.all(Array.from({ length: Number(process.env.RUNS) }, async (_, index) => {
  const [row] = await store.loadRuns('thread-' + index);
  const claim = { ...row, status: 'running', lease: { owner: name, expiresAt: Date.now() + 60000 } };
  const result = await store.compareAndSetRun(claim, 1);
  return result.written ? index : undefined;
}));
await store.close();
console.log(JSON.stringify(results.filter((index) => index !== undefined)));
`;

function runWorker(database: string, schema: string, name: string): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--conditions=@switchboard/source', '--import', 'tsx', '--input-type=module', '-e', WORKER],
      {
        env: {
          ...process.env,
          STORE_URL: STORE_URL.href,
          DATABASE: database,
          SCHEMA: schema,
          NAME: name,
          RUNS: String(RUNS),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    let errors = '';
    child.stdout.on('data', (data: Buffer) => (output += data.toString()));
    child.stderr.on('data', (data: Buffer) => (errors += data.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve(JSON.parse(output.trim()) as number[]);
      else reject(new Error(`worker ${name} exited ${code}: ${errors}`));
    });
  });
}

let database: PostgresTestDatabase;
beforeAll(async () => {
  database = await PostgresTestDatabase.start();
}, 60_000);
afterAll(async () => {
  await database.dispose();
});

describe('PostgresHistoryStore across processes', () => {
  it('gives each paused run to exactly one of two processes claiming them all at once', async () => {
    const schema = database.freshSchema();
    const store = database.store(schema);
    for (let index = 0; index < RUNS; index += 1) {
      const paused = makeRun(`thread-${index}`, 'run', 1_000 + index, [userMessage('go')], {
        status: 'paused',
      });
      expect(await store.compareAndSetRun(paused, 0)).toMatchObject({ written: true });
    }

    const [a, b] = await Promise.all(
      ['a', 'b'].map((name) => runWorker(database.connectionString, schema, name)),
    );
    const won = { a: new Set(a), b: new Set(b) };
    // Every run claimed, none twice, and each stored row names the process that won it.
    expect([...won.a].filter((index) => won.b.has(index))).toEqual([]);
    expect(won.a.size + won.b.size).toBe(RUNS);
    for (let index = 0; index < RUNS; index += 1) {
      const [row] = await store.loadRuns(`thread-${index}`);
      expect(row).toMatchObject({
        status: 'running',
        version: 2,
        lease: { owner: won.a.has(index) ? 'a' : 'b' },
      });
    }
    await database.closeStores();
  }, 60_000);
});
