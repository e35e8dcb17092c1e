import { execFile } from 'node:child_process';
import { appendFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunRecord } from '../history/history-store.ts';
import { assistantMessage, makeRun, userMessage } from '../history/history-store-contract.ts';
import type { Item } from '../vocabulary/items.ts';
import { JsonlHistoryStore } from './jsonl-history-store.ts';

const run = promisify(execFile);

/** Runs `source` in a separate Node process (plain `node:fs`, no store), as another program would. */
async function inOtherProcess(source: string, path: string, text = ''): Promise<void> {
  await run(process.execPath, ['-e', source], { env: { ...process.env, FILE: path, TEXT: text } });
}

/** The lines of the file, parsed (the torn or blank ones left out). */
async function parsedLines(path: string): Promise<Record<string, unknown>[]> {
  const lines: Record<string, unknown>[] = [];
  for (const line of (await readFile(path, 'utf8')).split('\n')) {
    try {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // torn or blank
    }
  }
  return lines;
}

const step = (index: number): Item =>
  index % 2 === 0 ? userMessage(`step ${index}`) : assistantMessage(`answer ${index}`);
const itemsUpTo = (count: number): Item[] => Array.from({ length: count }, (_, at) => step(at));

describe('JsonlHistoryStore appends only new items and reads only new bytes', () => {
  let directory: string;
  let path: string;

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'switchboard-jsonl-incremental-'));
    path = join(directory, 't.jsonl');
  });

  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('a run saved as it grows writes each save in bytes of its new items, not of the row', async () => {
    const store = new JsonlHistoryStore({ directory });
    const row = (count: number) =>
      makeRun('t', 'r1', 1_000, itemsUpTo(count), { status: 'running', updatedAt: 1_000 });
    expect(await store.compareAndSetRun(row(1), 0)).toEqual({ written: true, version: 1 });
    const growth: number[] = [];
    for (let version = 1; version < 60; version++) {
      const before = (await stat(path)).size;
      await store.compareAndSetRun(row(version + 1), version);
      growth.push((await stat(path)).size - before);
    }
    // Every save added one item of the same size: the same bytes each time, however long the row.
    const finalRow = JSON.stringify({ ...row(60), version: 60 });
    expect(Math.max(...growth) - Math.min(...growth)).toBeLessThanOrEqual(24);
    expect(Math.max(...growth)).toBeLessThan(300);
    expect((await stat(path)).size).toBeLessThan(finalRow.length * 12);
    // One full line, then delta lines carrying one item each.
    const lines = await parsedLines(path);
    expect(lines).toHaveLength(60);
    expect(lines[0]?.['items']).toHaveLength(1);
    for (const line of lines.slice(1)) {
      expect(line['items']).toBeUndefined();
      expect((line['delta'] as { items: Item[] }).items).toHaveLength(1);
    }
    // A new instance rebuilds the row from the lines; so does this one from what it holds.
    expect(await new JsonlHistoryStore({ directory }).loadRuns('t')).toEqual([
      { ...row(60), version: 60 },
    ]);
    expect(await store.loadRuns('t')).toEqual([{ ...row(60), version: 60 }]);
  });

  it('writes a full line when items were replaced, and a header-only delta for a renewal', async () => {
    const store = new JsonlHistoryStore({ directory });
    const first = makeRun('t', 'r1', 1_000, [userMessage('a'), assistantMessage('b')]);
    await store.compareAndSetRun(first, 0);
    const replaced = { ...first, items: [userMessage('a'), assistantMessage('c')] };
    await store.compareAndSetRun(replaced, 1);
    const renewed = { ...replaced, lease: { owner: 'me', expiresAt: 9_000 }, updatedAt: 5_000 };
    await store.compareAndSetRun(renewed, 2);
    const lines = await parsedLines(path);
    expect(lines.map((line) => ('items' in line ? 'full' : 'delta'))).toEqual([
      'full',
      'full',
      'delta',
    ]);
    expect(lines[2]?.['delta']).toMatchObject({ baseItems: 2, baseVersion: 2, items: [] });
    const expected = [{ ...renewed, version: 3 }];
    expect(await store.loadRuns('t')).toEqual(expected);
    expect(await new JsonlHistoryStore({ directory }).loadRuns('t')).toEqual(expected);
  });

  it('reads files written with full lines only, and appends delta lines to them', async () => {
    const old = [
      makeRun('t', 'r1', 1_000, [userMessage('one')], { status: 'running', version: 1 }),
      makeRun('t', 'r2', 2_000, [userMessage('two')], { version: 1 }),
      makeRun('t', 'r1', 1_000, [userMessage('one'), assistantMessage('1')], { version: 2 }),
    ];
    await writeFile(path, old.map((row) => `${JSON.stringify(row)}\n`).join(''));
    const store = new JsonlHistoryStore({ directory });
    expect(await store.loadRuns('t')).toEqual([old[2], old[1]]);
    const next = { ...old[2], items: [...(old[2]?.items ?? []), userMessage('more')] } as RunRecord;
    expect(await store.compareAndSetRun(next, 2)).toEqual({ written: true, version: 3 });
    expect((await parsedLines(path)).at(-1)?.['delta']).toMatchObject({ baseItems: 2 });
    expect(await new JsonlHistoryStore({ directory }).loadRuns('t')).toEqual([
      { ...next, version: 3 },
      old[1],
    ]);
  });

  it('skips a torn delta line, and a delta line whose base was lost, never rebuilding a wrong row', async () => {
    const store = new JsonlHistoryStore({ directory });
    const row = (count: number) => makeRun('t', 'r1', 1_000, itemsUpTo(count));
    for (let version = 0; version < 3; version++)
      await store.compareAndSetRun(row(version + 1), version);

    // A crash while writing the 4th save: the row stays at version 3; the next save starts a new line.
    const full = await readFile(path, 'utf8');
    await appendFile(path, '{"runId":"r1","threadId":"t","status":"completed","delta":{"ba');
    const reader = new JsonlHistoryStore({ directory });
    expect(await reader.loadRuns('t')).toEqual([{ ...row(3), version: 3 }]);
    expect(await store.compareAndSetRun(row(4), 3)).toEqual({ written: true, version: 4 });
    expect(await reader.loadRuns('t')).toEqual([{ ...row(4), version: 4 }]);
    expect(await new JsonlHistoryStore({ directory }).loadRuns('t')).toEqual([
      { ...row(4), version: 4 },
    ]);

    // A damaged file: the line of version 2 is gone. Version 3 (built on it) and 4 (built on 3)
    // cannot be rebuilt: the row reads as version 1, whole, not as version 4 with items missing.
    const lines = (await readFile(path, 'utf8')).split('\n');
    expect(full.split('\n')).toHaveLength(4);
    await writeFile(path, lines.filter((_, index) => index !== 1).join('\n'));
    const damaged = new JsonlHistoryStore({ directory });
    expect(await damaged.loadRuns('t')).toEqual([{ ...row(1), version: 1 }]);
    // Writers carry on from what can be read.
    expect(await damaged.compareAndSetRun(row(2), 4)).toMatchObject({
      written: false,
      current: { ...row(1), version: 1 },
    });
    expect(await damaged.compareAndSetRun(row(5), 1)).toEqual({ written: true, version: 2 });
    expect(await new JsonlHistoryStore({ directory }).loadRuns('t')).toEqual([
      { ...row(5), version: 2 },
    ]);

    // Rows saved without versions: the base is told by its line's place, not only by counts.
    const unversioned = join(directory, 'v.jsonl');
    await store.saveRun(makeRun('v', 'r1', 1_000, [userMessage('a')]));
    await store.saveRun(makeRun('v', 'r1', 1_000, [userMessage('x')]));
    await store.saveRun(makeRun('v', 'r1', 1_000, [userMessage('x'), assistantMessage('c')]));
    const kinds = (await parsedLines(unversioned)).map((line) =>
      'items' in line ? 'full' : 'delta',
    );
    expect(kinds).toEqual(['full', 'full', 'delta']);
    const vLines = (await readFile(unversioned, 'utf8')).split('\n');
    await writeFile(unversioned, vLines.filter((_, index) => index !== 1).join('\n'));
    expect(await new JsonlHistoryStore({ directory }).loadRuns('v')).toEqual([
      makeRun('v', 'r1', 1_000, [userMessage('a')]),
    ]);

    // A delta line with no row before it at all is skipped too.
    await writeFile(
      join(directory, 'u.jsonl'),
      `${(await readFile(path, 'utf8')).split('\n').at(-2)?.replace('"threadId":"t"', '"threadId":"u"')}\n`,
    );
    expect(await new JsonlHistoryStore({ directory }).loadRuns('u')).toEqual([]);
  });

  it('two instances on one directory read each other’s appends incrementally', async () => {
    const a = new JsonlHistoryStore({ directory });
    const b = new JsonlHistoryStore({ directory });
    await a.compareAndSetRun(makeRun('t', 'r1', 1_000, [userMessage('from a')]), 0);
    const seen = await a.loadRunChanges('t', undefined);
    expect(seen).toMatchObject({ complete: true, runs: [{ runId: 'r1' }] });
    expect(await b.loadRuns('t')).toHaveLength(1);

    // b writes a new row and extends a's row; a gets exactly those from its cursor.
    await b.compareAndSetRun(makeRun('t', 'r2', 2_000, [userMessage('from b')]), 0);
    const r1 = makeRun('t', 'r1', 1_000, [userMessage('from a'), assistantMessage('by b')]);
    await b.compareAndSetRun(r1, 1);
    const changes = await a.loadRunChanges('t', seen.cursor);
    expect(changes.complete).toBe(false);
    expect(changes.runs).toEqual([
      { ...r1, version: 2 },
      makeRun('t', 'r2', 2_000, [userMessage('from b')], { version: 1 }),
    ]);
    expect(await a.loadRunChanges('t', changes.cursor)).toEqual({
      runs: [],
      cursor: changes.cursor,
      complete: false,
    });
    // a's cursor is valid for b too: it names the file and a byte offset, not the instance.
    expect(await b.loadRunChanges('t', seen.cursor)).toMatchObject({ complete: false });

    // a reads only the bytes after what it read: a line before that point changed in place
    // (same length, so the file looks appended to) goes unnoticed by a, while a new instance
    // reading the whole file sees it.
    const text = await readFile(path, 'utf8');
    await writeFile(path, text.replace('"from a"', '"FROM A"'));
    await b.compareAndSetRun(makeRun('t', 'r3', 3_000, [userMessage('more')]), 0);
    const incremental = await a.loadRuns('t');
    expect(incremental.map((row) => row.runId)).toEqual(['r1', 'r2', 'r3']);
    expect(incremental[0]?.items[0]).toEqual(userMessage('from a'));
    expect((await new JsonlHistoryStore({ directory }).loadRuns('t'))[0]?.items[0]).toEqual(
      userMessage('FROM A'),
    );
  });

  it('reads the file whole again when another process recreates, truncates or rewrites it', async () => {
    const store = new JsonlHistoryStore({ directory });
    await store.saveRun(makeRun('t', 'r1', 1_000, [userMessage('first file')]));
    const first = await store.loadRunChanges('t', undefined);

    // Deleted and written again by another program: a new file.
    const replacement = makeRun('t', 'x1', 5_000, [userMessage('second file')]);
    await inOtherProcess(
      "const fs = require('node:fs'); fs.rmSync(process.env.FILE); fs.writeFileSync(process.env.FILE, process.env.TEXT);",
      path,
      `${JSON.stringify(replacement)}\n`,
    );
    expect(await store.loadRuns('t')).toEqual([replacement]);
    const recreated = await store.loadRunChanges('t', first.cursor);
    expect(recreated).toMatchObject({ complete: true, runs: [replacement] });

    // Truncated in place (same file, shorter than what was read).
    await store.saveRun(makeRun('t', 'x2', 6_000, [userMessage('appended')]));
    const longer = await store.loadRunChanges('t', undefined);
    await inOtherProcess(
      "require('node:fs').truncateSync(process.env.FILE, Number(process.env.TEXT));",
      path,
      String(Buffer.byteLength(`${JSON.stringify(replacement)}\n`)),
    );
    expect(await store.loadRuns('t')).toEqual([replacement]);
    expect(await store.loadRunChanges('t', longer.cursor)).toMatchObject({ complete: true });

    // Rewritten in place with other, longer content (same inode, grown past what was read).
    const rewritten = [
      makeRun('t', 'y1', 7_000, [userMessage('rewritten, and long enough to pass the old end')]),
      makeRun('t', 'y2', 8_000, [userMessage('second line')]),
    ];
    const before = await store.loadRunChanges('t', undefined);
    await inOtherProcess(
      "require('node:fs').writeFileSync(process.env.FILE, process.env.TEXT);",
      path,
      rewritten.map((row) => `${JSON.stringify(row)}\n`).join(''),
    );
    expect(await store.loadRuns('t')).toEqual(rewritten);
    expect(await store.loadRunChanges('t', before.cursor)).toMatchObject({
      complete: true,
      runs: rewritten,
    });

    // Deleted: no rows; the cursor of the missing file is complete until a file appears.
    await inOtherProcess("require('node:fs').rmSync(process.env.FILE);", path);
    const gone = await store.loadRunChanges('t', before.cursor);
    expect(gone).toMatchObject({ complete: true, runs: [] });
    expect(await store.loadRunChanges('t', gone.cursor)).toMatchObject({
      complete: false,
      runs: [],
    });
    await store.saveRun(makeRun('t', 'z1', 9_000, [userMessage('again')]));
    expect(await store.loadRunChanges('t', gone.cursor)).toMatchObject({
      complete: true,
      runs: [{ runId: 'z1' }],
    });
  });

  it('takes an unknown or malformed cursor as none', async () => {
    const store = new JsonlHistoryStore({ directory });
    await store.saveRun(makeRun('t', 'r1', 1_000, [userMessage('one')]));
    for (const cursor of ['', 'nonsense', '[]', '["jsonl",1,"0:0:0",0,""]', '{"a":1}']) {
      expect(await store.loadRunChanges('t', cursor)).toMatchObject({
        complete: true,
        runs: [{ runId: 'r1' }],
      });
    }
    const { cursor } = await store.loadRunChanges('t', undefined);
    const [kind, format, identity, offset, tail] = JSON.parse(cursor) as unknown[];
    const shifted = JSON.stringify([kind, format, identity, Number(offset) - 1, tail]);
    expect(await store.loadRunChanges('t', shifted)).toMatchObject({ complete: true });
    const beyond = JSON.stringify([kind, format, identity, Number(offset) + 100, tail]);
    expect(await store.loadRunChanges('t', beyond)).toMatchObject({ complete: true });
  });

  it('returns copies, and keeps only the most recently used threads parsed', async () => {
    const store = new JsonlHistoryStore({ directory, cachedThreads: 1 });
    await store.saveRun(makeRun('t', 'r1', 1_000, [userMessage('one')]));
    const [loaded] = await store.loadRuns('t');
    loaded?.items.push(userMessage('changed by the caller'));
    const changes = await store.loadRunChanges('t', undefined);
    changes.runs[0]?.items.pop();
    expect(await store.loadRuns('t')).toEqual([makeRun('t', 'r1', 1_000, [userMessage('one')])]);

    // Reading u drops t (limit 1): t is parsed whole next time, so an in-place change before
    // the read point is seen (it would not be with t still held; see the test above).
    await store.saveRun(makeRun('u', 'r1', 1_000, [userMessage('other')]));
    await store.loadRuns('u');
    await writeFile(path, (await readFile(path, 'utf8')).replace('"one"', '"ONE"'));
    expect((await store.loadRuns('t'))[0]?.items).toEqual([userMessage('ONE')]);
  });
});
