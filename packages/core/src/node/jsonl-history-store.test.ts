import {
  appendFile,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSwitchboardError } from '../errors/switchboard-error.ts';
import {
  assistantMessage,
  describeHistoryStore,
  makeRun,
  sampleRunState,
  userMessage,
} from '../history/history-store-contract.ts';
import { describeAttachmentStore } from '../history/attachment-store-contract.ts';
import { JsonlHistoryStore } from './jsonl-history-store.ts';
import { encodeThreadId } from './thread-file-name.ts';

describeHistoryStore('JsonlHistoryStore', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'switchboard-jsonl-'));
  const open = () => new JsonlHistoryStore({ directory });
  return {
    store: open(),
    reopen: open,
    wholeThreadChanges: true,
    dispose: () => rm(directory, { recursive: true, force: true }),
  };
});

describeAttachmentStore('JsonlHistoryStore', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'switchboard-jsonl-'));
  const open = () => new JsonlHistoryStore({ directory });
  return {
    store: open(),
    reopen: open,
    dispose: () => rm(directory, { recursive: true, force: true }),
  };
});

describe('JsonlHistoryStore files', () => {
  let directory: string;
  let store: JsonlHistoryStore;

  beforeEach(async () => {
    directory = join(await mkdtemp(join(tmpdir(), 'switchboard-jsonl-')), 'nested', 'history');
    store = new JsonlHistoryStore({ directory });
  });

  afterEach(async () => {
    await rm(join(directory, '..', '..'), { recursive: true, force: true });
  });

  it('keeps one JSONL file per thread plus threads.json, appending one line per save', async () => {
    const path = join(directory, 't1.jsonl');
    await store.saveRun(makeRun('t1', 'r0', 0, [userMessage('first')]));
    for (let index = 1; index < 50; index += 1) {
      await store.saveRun(makeRun('t1', `r${index}`, index, [assistantMessage(`reply ${index}`)]));
    }
    await store.saveRun(makeRun('t2', 'other', 0, [userMessage('other thread')]));
    expect((await readdir(directory)).sort()).toEqual(['t1.jsonl', 't2.jsonl', 'threads.json']);

    const before = await readFile(path, 'utf8');
    expect(before.split('\n')).toHaveLength(51);
    const next = makeRun('t1', 'r50', 50, [assistantMessage('reply 50')]);
    await store.saveRun(next);
    const after = await readFile(path, 'utf8');

    // The old bytes are untouched; exactly the new run's line was added.
    expect(after.startsWith(before)).toBe(true);
    expect(after.slice(before.length)).toBe(`${JSON.stringify(next)}\n`);
    expect((await stat(path)).size).toBe(Buffer.byteLength(after));
    expect((await readdir(directory)).sort()).toEqual(['t1.jsonl', 't2.jsonl', 'threads.json']);
  });

  it('appends a newer line on re-save and reads the last line per runId', async () => {
    await store.saveRun(makeRun('t1', 'r1', 1_000, [userMessage('one')], { status: 'running' }));
    await store.saveRun(makeRun('t1', 'r2', 2_000, [userMessage('two')]));
    const resumed = makeRun('t1', 'r1', 1_000, [userMessage('one'), assistantMessage('done')], {
      updatedAt: 3_000,
    });
    await store.saveRun(resumed);

    const lines = (await readFile(join(directory, 't1.jsonl'), 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    const runs = await store.loadRuns('t1');
    expect(runs.map((run) => run.runId)).toEqual(['r1', 'r2']);
    expect(runs[0]).toEqual(resumed);
  });

  it('skips a torn last line and starts the next append on a fresh line', async () => {
    const path = join(directory, 't1.jsonl');
    const first = makeRun('t1', 'r1', 1_000, [userMessage('Hello')], { state: sampleRunState() });
    await store.saveRun(first);
    // A crash in the middle of writing the second run.
    const torn = JSON.stringify(makeRun('t1', 'r2', 2_000, [userMessage('lost')])).slice(0, 40);
    await appendFile(path, torn);

    expect(await store.loadRuns('t1')).toEqual([first]);

    const third = makeRun('t1', 'r3', 3_000, [assistantMessage('after the crash')]);
    await store.saveRun(third);
    expect(await store.loadRuns('t1')).toEqual([first, third]);
    expect((await readFile(path, 'utf8')).split('\n')).toEqual([
      JSON.stringify(first),
      torn,
      JSON.stringify(third),
      '',
    ]);
  });

  it('skips lines that are not runs of the thread', async () => {
    const first = makeRun('t1', 'r1', 1_000, [userMessage('Hello')]);
    await store.saveRun(first);
    await appendFile(
      join(directory, 't1.jsonl'),
      [
        '',
        '   ',
        'null',
        '[1,2]',
        '{"runId":"x"}',
        JSON.stringify(makeRun('someone-else', 'r9', 5, [])),
        '{"broken": ',
        '',
      ].join('\n'),
    );
    expect(await store.loadRuns('t1')).toEqual([first]);
  });

  it('writes threads.json atomically and leaves no temporary files', async () => {
    await store.saveRun(makeRun('t1', 'r1', 1_000, [userMessage('Hello')]));
    await store.renameThread('t1', 'Renamed');
    await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        store.saveRun(
          makeRun(`t${index}`, `parallel-${index}`, 2_000 + index, [userMessage('hi')]),
        ),
      ),
    );
    const files = await readdir(directory);
    expect(files.filter((file) => file.endsWith('.tmp'))).toEqual([]);
    const index = JSON.parse(await readFile(join(directory, 'threads.json'), 'utf8')) as {
      version: number;
      threads: Record<string, unknown>;
    };
    expect(index.version).toBe(1);
    expect(Object.keys(index.threads)).toHaveLength(20);
    expect(index.threads['t1']).toEqual({
      title: 'Renamed',
      titleSource: 'user',
      createdAt: 1_000,
      updatedAt: 2_002,
    });
  });

  it('gives every thread id a distinct, safe file name', async () => {
    const ids = [
      'plain-id_1',
      'Thread',
      'thread',
      '../../etc/passwd',
      'a/b\\c',
      'CON',
      'con',
      'nul',
      '.',
      '..',
      '',
      '~7e',
      'ünïcödé 🚀',
      '\uD800',
      '\uFFFD',
      'x'.repeat(500),
      `${'x'.repeat(500)}y`,
      '__proto__',
    ];
    const names = ids.map(encodeThreadId);
    expect(new Set(names.map((name) => name.toLowerCase())).size).toBe(ids.length);
    for (const name of names) {
      expect(name).toMatch(/^[a-z0-9_~-]{1,160}$/);
      expect(name).not.toMatch(/^(con|prn|aux|nul|com\d|lpt\d)$/);
    }
    expect(encodeThreadId('plain-id_1')).toBe('plain-id_1');

    for (const [index, threadId] of ids.entries()) {
      await store.saveRun(makeRun(threadId, `run-${index}`, index, [userMessage(`m${index}`)]));
    }
    const files = await readdir(directory);
    expect(files).toHaveLength(ids.length + 1);
    for (const [index, threadId] of ids.entries()) {
      expect(await store.loadItems(threadId)).toEqual([userMessage(`m${index}`)]);
    }
    expect((await store.listThreads()).map((thread) => thread.threadId)).toEqual(
      [...ids].reverse(),
    );
    // Nothing escaped the directory.
    expect(await readdir(join(directory, '..'))).toEqual(['history']);
  });

  it('rejects with history_error when threads.json is corrupt', async () => {
    await store.saveRun(makeRun('t1', 'r1', 1_000, [userMessage('Hello')]));
    await writeFile(join(directory, 'threads.json'), '{"version":1,"threads":');
    const error: unknown = await store.listThreads().catch((failure: unknown) => failure);
    expect(isSwitchboardError(error, 'history_error')).toBe(true);
    expect((error as Error).cause).toBeInstanceOf(SyntaxError);
  });

  it('rejects with history_error when the directory cannot be written', async () => {
    const file = join(directory, '..', '..', 'a-file');
    await writeFile(file, 'not a directory');
    const broken = new JsonlHistoryStore({ directory: join(file, 'history') });
    const error: unknown = await broken
      .saveRun(makeRun('t1', 'r1', 1_000, [userMessage('Hello')]))
      .catch((failure: unknown) => failure);
    expect(isSwitchboardError(error, 'history_error')).toBe(true);
    expect((error as NodeJS.ErrnoException).cause).toMatchObject({ code: 'ENOTDIR' });
  });

  it('rejects runs that JSON cannot represent faithfully with invalid_input', async () => {
    const error: unknown = await store
      .saveRun(makeRun('t1', 'r1', Number.POSITIVE_INFINITY, [userMessage('Hello')]))
      .catch((failure: unknown) => failure);
    expect(isSwitchboardError(error, 'invalid_input')).toBe(true);
    const cyclic = makeRun('t1', 'r1', 1_000, [userMessage('Hello')]);
    (cyclic as unknown as { self: unknown }).self = cyclic;
    const cycleError: unknown = await store.saveRun(cyclic).catch((failure: unknown) => failure);
    expect(isSwitchboardError(cycleError, 'invalid_input')).toBe(true);
    expect(await store.listThreads()).toEqual([]);
  });

  it('a lock left by a dead process lets exactly one of several writers through', async () => {
    // Several writers find the same stale lock at once: only one may break it, and none may
    // remove the fresh lock another just took (two compare-and-sets at one version otherwise).
    let doubleWrites = 0;
    for (let trial = 0; trial < 60; trial++) {
      const stores = [0, 1, 2].map(() => new JsonlHistoryStore({ directory }));
      const threadId = `stale-${trial}`;
      const row = (content: string) =>
        makeRun(threadId, 'r1', 2, [userMessage(content)], { status: 'running' });
      await stores[0]?.saveRun(makeRun(threadId, 'r0', 1, [userMessage('seed')]));
      const lock = join(directory, `${encodeThreadId(threadId)}.lock`);
      await writeFile(lock, '');
      const longAgo = new Date(Date.now() - 60_000);
      await utimes(lock, longAgo, longAgo);
      const results = await Promise.all(
        stores.map((store, index) =>
          store.compareAndSetRun(row(`writer ${index}`), 0).then((result) => result.written),
        ),
      );
      if (results.filter(Boolean).length !== 1) doubleWrites += 1;
    }
    expect(doubleWrites).toBe(0);
    expect((await readdir(directory)).filter((name) => name.includes('.lock'))).toEqual([]);
  }, 60_000);
});
