import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { makeRun, userMessage } from '../history/history-store-contract.ts';
import { JsonlHistoryStore } from './jsonl-history-store.ts';

const STORE_URL = pathToFileURL(
  fileURLToPath(new URL('./jsonl-history-store.ts', import.meta.url)),
);

/**
 * One writer process: `rounds` times, reads the shared row and compare-and-sets it with its
 * counter plus one; also creates a thread of its own. Prints how many of its writes won.
 */
const WORKER = `
const { JsonlHistoryStore } = await import(process.env.STORE_URL);
const store = new JsonlHistoryStore({ directory: process.env.DIRECTORY });
const name = process.env.NAME;
let won = 0;
for (let round = 0; round < Number(process.env.ROUNDS); round += 1) {
  const [row] = await store.loadRuns('shared');
  const counter = row.state.activatedTools.length;
  const next = { ...row, state: { version: 1, pending: [], activatedTools: [...row.state.activatedTools, name + ':' + counter] } };
  const result = await store.compareAndSetRun(next, row.version ?? 0);
  if (result.written) won += 1;
}
await store.compareAndSetRun({ runId: 'own-' + name, threadId: 'own-' + name, status: 'completed', items: [{ type: 'message', role: 'user', content: name }], createdAt: 1, updatedAt: 2 }, 0);
console.log(String(won));
`;

function runWorker(directory: string, name: string, rounds: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', WORKER],
      {
        env: {
          ...process.env,
          STORE_URL: STORE_URL.href,
          DIRECTORY: directory,
          NAME: name,
          ROUNDS: String(rounds),
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
      if (code === 0) resolve(Number(output.trim()));
      else reject(new Error(`worker ${name} exited ${code}: ${errors}`));
    });
  });
}

describe('JsonlHistoryStore across processes', () => {
  let directory: string | undefined;
  afterEach(async () => {
    if (directory !== undefined) await rm(directory, { recursive: true, force: true });
  });

  it('compare-and-set is atomic across processes on one directory; threads.json keeps every thread', async () => {
    directory = await mkdtemp(join(tmpdir(), 'switchboard-jsonl-processes-'));
    const store = new JsonlHistoryStore({ directory });
    await store.compareAndSetRun(
      makeRun('shared', 'row', 1_000, [userMessage('shared')], {
        state: { version: 1, pending: [], activatedTools: [] },
      }),
      0,
    );
    const names = ['a', 'b', 'c'];
    const wins = await Promise.all(names.map((name) => runWorker(directory as string, name, 15)));

    const [row] = await store.loadRuns('shared');
    const total = wins.reduce((sum, won) => sum + won, 0);
    // No lost update: every winning write is in the row, each built on the one before.
    expect(row?.state?.activatedTools).toHaveLength(total);
    expect(row?.version).toBe(1 + total);
    expect(total).toBeGreaterThanOrEqual(15);
    const threads = await store.listThreads();
    expect(threads.map((thread) => thread.threadId).sort()).toEqual([
      'own-a',
      'own-b',
      'own-c',
      'shared',
    ]);
    expect((await readdir(directory)).filter((file) => file.endsWith('.lock'))).toEqual([]);
  }, 60_000);
});
