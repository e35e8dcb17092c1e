import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { RunChanges, ThreadCursor } from '../history/history-store.ts';
import { makeRun, userMessage } from '../history/history-store-contract.ts';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import { mockModel, textTurn, toolCallTurn } from '../testing/mock-model.ts';
import { tool } from '../tools/tool.ts';
import { Agent } from './agent.ts';
import { ThreadCache } from './thread-cache.ts';
import type { Item } from '../vocabulary/items.ts';

const texts = (items: readonly Item[]) =>
  items.map((item) => (item.type === 'message' ? item.content : item.type));

/** A memory store that records every `loadRunChanges` answer (and can answer stale once). */
class CountingStore extends MemoryHistoryStore {
  readonly answers: { threadId: string; since: ThreadCursor | undefined; changes: RunChanges }[] =
    [];
  /** Set: the next read answers "nothing changed" from that cursor (a read that raced a write). */
  staleOnce: ThreadCursor | undefined;

  override async loadRunChanges(
    threadId: string,
    since: ThreadCursor | undefined,
    options: { signal?: AbortSignal } = {},
  ): Promise<RunChanges> {
    if (this.staleOnce !== undefined && since === this.staleOnce) {
      this.staleOnce = undefined;
      return { runs: [], cursor: since, complete: false };
    }
    const changes = await super.loadRunChanges(threadId, since, options);
    this.answers.push({ threadId, since, changes });
    return changes;
  }
}

const ids = (runs: readonly { runId: string }[]) => runs.map((run) => run.runId);

describe('ThreadCache', () => {
  it('reads the whole thread once, then merges only the rows written since', async () => {
    const store = new CountingStore();
    await store.saveRun(makeRun('t', 'r1', 1_000, [userMessage('one')]));
    await store.saveRun(makeRun('t', 'r2', 2_000, [userMessage('two')]));
    const cache = new ThreadCache(store);

    expect(ids(await cache.load('t'))).toEqual(['r1', 'r2']);
    expect(store.answers.at(-1)?.changes.complete).toBe(true);

    await store.saveRun(makeRun('t', 'r3', 3_000, [userMessage('three')]));
    await store.saveRun(makeRun('t', 'r1', 1_000, [userMessage('one, edited')]));
    // A row created before the newest ones (another client's clock) goes in createdAt order.
    await store.saveRun(makeRun('t', 'r0', 500, [userMessage('zero')]));
    const runs = await cache.load('t');
    expect(store.answers.at(-1)?.changes).toMatchObject({ complete: false });
    expect(ids(store.answers.at(-1)?.changes.runs ?? [])).toEqual(['r0', 'r1', 'r3']);
    expect(runs).toEqual(await store.loadRuns('t'));

    // Nothing changed: nothing read but the cursor, the same rows.
    expect(await cache.load('t')).toEqual(runs);
    expect(store.answers.at(-1)?.changes.runs).toEqual([]);
  });

  it('replaces what it holds when the store answers the whole thread (deleted and recreated)', async () => {
    const store = new CountingStore();
    await store.saveRun(makeRun('t', 'old', 1_000, [userMessage('former life')]));
    const cache = new ThreadCache(store);
    expect(ids(await cache.load('t'))).toEqual(['old']);

    await store.deleteThread('t');
    expect(await cache.load('t')).toEqual([]);
    await store.saveRun(makeRun('t', 'new', 2_000, [userMessage('new life')]));
    expect(ids(await cache.load('t'))).toEqual(['new']);
    expect(store.answers.at(-1)?.changes.complete).toBe(true);
  });

  it('hands out arrays of its own: changing one changes nothing held', async () => {
    const store = new MemoryHistoryStore();
    await store.saveRun(makeRun('t', 'r1', 1_000, [userMessage('one')]));
    const cache = new ThreadCache(store);
    const first = await cache.load('t');
    first.pop();
    expect(ids(await cache.load('t'))).toEqual(['r1']);
  });

  it('keeps the most recently read threads within its size, least recently read dropped', async () => {
    const store = new CountingStore();
    for (const threadId of ['a', 'b', 'c']) {
      await store.saveRun(makeRun(threadId, `${threadId}1`, 1_000, [userMessage(threadId)]));
    }
    const cache = new ThreadCache(store, 2);
    await cache.load('a');
    await cache.load('b');
    await cache.load('a');
    await cache.load('c');
    expect(cache.threadIds).toEqual(['a', 'c']);
    // `b` was dropped: its next read is a whole one again.
    await cache.load('b');
    expect(store.answers.at(-1)).toMatchObject({ threadId: 'b', since: undefined });
    await cache.load('c');
    expect(store.answers.at(-1)?.since).toBeDefined();
    expect(cache.threadIds).toEqual(['b', 'c']);
  });

  it('keeps the branch a run reads, extends it by the runs added since, and rebuilds it when one of its rows changes', async () => {
    const store = new MemoryHistoryStore();
    const linked = (runId: string, createdAt: number, parentRunId: string | null, text: string) =>
      makeRun('t', runId, createdAt, [userMessage(text)], { parentRunId });
    await store.saveRun(linked('r1', 1_000, null, 'one'));
    await store.saveRun(linked('r2', 2_000, 'r1', 'two'));
    await store.saveRun(linked('side', 2_500, 'r1', 'a sibling of two'));
    const cache = new ThreadCache(store);
    await cache.load('t');
    const texts = (branch: ReturnType<ThreadCache['branch']>) =>
      branch?.items.with([]).map((item) => (item.type === 'message' ? item.content : item.type));

    const first = cache.branch('t', 'r2');
    expect(texts(first)).toEqual(['one', 'two']);
    expect(first).toMatchObject({ last: { runId: 'r2' }, plain: true });
    expect(cache.branch('t', 'r2')).toBe(first);
    expect(cache.branch('t', null)).toMatchObject({ last: undefined, plain: true });
    expect(texts(cache.branch('t', null))).toEqual([]);
    expect(cache.branch('t', 'missing')).toBeUndefined();
    expect(cache.branch('other', 'r1')).toBeUndefined();
    // The row index a run start checks its branch point against.
    expect([cache.has('t', 'side'), cache.has('t', 'missing'), cache.has('other', 'r1')]).toEqual([
      true,
      false,
      undefined,
    ]);

    await store.saveRun(linked('r3', 3_000, 'r2', 'three'));
    await cache.load('t');
    expect(texts(cache.branch('t', 'r3'))).toEqual(['one', 'two', 'three']);
    // The kept branch is never changed in place: the first answer still reads as it was.
    expect(texts(first)).toEqual(['one', 'two']);
    expect(texts(cache.branch('t', 'side'))).toEqual(['one', 'a sibling of two']);

    // An MCP Apps view's model context in a run: the branch is no longer plain.
    await store.saveRun(
      makeRun(
        't',
        'r4',
        4_000,
        [
          {
            type: 'message',
            role: 'user',
            content: 'view state',
            appContext: { server: 'demo', callId: 'c1', toolName: 'show' },
          },
        ],
        { parentRunId: 'r3' },
      ),
    );
    await cache.load('t');
    expect(cache.branch('t', 'r4')?.plain).toBe(false);

    // A row of the kept branch replaced (another client edited it): the branch is read again.
    await store.saveRun(linked('r2', 2_000, 'r1', 'two, edited'));
    await cache.load('t');
    expect(texts(cache.branch('t', 'r3'))).toEqual(['one', 'two, edited', 'three']);
  });

  it("keeps the thread's running rows apart, so a load checks only those for stale runs", async () => {
    const store = new MemoryHistoryStore();
    await store.saveRun(makeRun('t', 'r1', 1_000, [userMessage('one')]));
    const cache = new ThreadCache(store);
    expect(cache.running('t')).toBeUndefined();
    await cache.load('t');
    expect(cache.running('t')).toEqual([]);
    await store.saveRun(makeRun('t', 'r2', 2_000, [userMessage('two')], { status: 'running' }));
    await cache.load('t');
    expect(ids(cache.running('t') ?? [])).toEqual(['r2']);
    await store.saveRun(makeRun('t', 'r2', 2_000, [userMessage('two')], { status: 'failed' }));
    await cache.load('t');
    expect(cache.running('t')).toEqual([]);
  });

  it('follows the previous run for rows written before branches (no parentRunId)', async () => {
    const store = new MemoryHistoryStore();
    await store.saveRun(makeRun('t', 'a', 1_000, [userMessage('a')]));
    await store.saveRun(makeRun('t', 'b', 2_000, [userMessage('b')]));
    const cache = new ThreadCache(store);
    await cache.load('t');
    expect(cache.branch('t', 'b')?.items.with([])).toEqual([userMessage('a'), userMessage('b')]);
  });

  it('serialises reads of one thread, so a slower answer never overwrites a newer one', async () => {
    const store = new MemoryHistoryStore();
    await store.saveRun(makeRun('t', 'r1', 1_000, [userMessage('one')]));
    const cache = new ThreadCache(store);
    const reads = [cache.load('t'), cache.load('t')];
    await store.saveRun(makeRun('t', 'r1', 1_000, [userMessage('one, edited')]));
    await Promise.all(reads);
    expect(await cache.load('t')).toEqual(await store.loadRuns('t'));
  });

  it('leaves what it holds when the store fails, and reads on afterwards', async () => {
    const store = new MemoryHistoryStore();
    await store.saveRun(makeRun('t', 'r1', 1_000, [userMessage('one')]));
    const cache = new ThreadCache(store);
    await cache.load('t');
    const controller = new AbortController();
    controller.abort();
    await expect(cache.load('t', { signal: controller.signal })).rejects.toMatchObject({
      code: 'aborted',
    });
    await store.saveRun(makeRun('t', 'r2', 2_000, [userMessage('two')]));
    expect(ids(await cache.load('t'))).toEqual(['r1', 'r2']);
  });
});

describe('The agent reads threads through its cache', () => {
  it('a run start after the thread was opened reads only what changed', async () => {
    const store = new CountingStore();
    const agent = new Agent({
      name: 'test',
      history: store,
      model: mockModel([textTurn('first'), textTurn('second')]),
    });
    await agent.execute({ threadId: 't', messages: 'one' }).result();
    await agent.loadThread('t');
    const before = store.answers.length;

    const result = await agent.execute({ threadId: 't', messages: 'two' }).result();

    expect(result.status).toBe('completed');
    const started = store.answers.slice(before);
    expect(started.length).toBeGreaterThan(0);
    for (const answer of started) expect(answer.changes.complete).toBe(false);
    // The model still reads the whole branch.
    expect(await store.loadItems('t')).toHaveLength(4);
  });

  it('rows another client wrote appear at the next run start', async () => {
    const store = new MemoryHistoryStore();
    const model = mockModel([textTurn('from A'), textTurn('from B'), textTurn('A again')]);
    const first = new Agent({ name: 'a', history: store, model });
    const second = new Agent({ name: 'b', history: store, model });
    await first.execute({ threadId: 't', messages: 'one' }).result();
    await second.execute({ threadId: 't', messages: 'two' }).result();
    await first.execute({ threadId: 't', messages: 'three' }).result();
    const items = model.requests[2]?.items ?? [];
    expect(items.map((item) => (item.type === 'message' ? item.content : item.type))).toEqual([
      'one',
      'from A',
      'two',
      'from B',
      'three',
    ]);
  });

  it("each run's request carries its own branch: forks of one run, a run after another writer's, and a model that changes its request", async () => {
    const store = new MemoryHistoryStore();
    const model = mockModel([
      textTurn('answer one'),
      textTurn('fork a'),
      textTurn('fork b'),
      textTurn('from B'),
      textTurn('after B'),
    ]);
    // A model adapter that overwrites the array it was sent (typed readonly: it should not),
    // after noting what it was sent.
    const seen: (string | undefined)[][] = [];
    const stream = model.stream.bind(model);
    const vandal: typeof model = {
      ...model,
      stream: (request, options) => {
        seen.push(texts(request.items));
        const result = stream(request, options);
        const items = request.items as Item[];
        items.fill(userMessage('vandalised')).push(userMessage('vandalised'));
        return result;
      },
    };
    const first = new Agent({ name: 'a', history: store, model: vandal });
    const second = new Agent({ name: 'b', history: store, model });
    const one = await first.execute({ threadId: 't', messages: 'one' }).result();
    await first.loadThread('t');
    // Two forks of the same run, as edits are: each reads the branch and its own message.
    await first.execute({ threadId: 't', parentRunId: one.runId, messages: 'fork a' }).result();
    const forkB = await first
      .execute({ threadId: 't', parentRunId: one.runId, messages: 'fork b' })
      .result();
    // Another client continues fork b; this agent's next run follows that run.
    const fromB = await second
      .execute({ threadId: 't', parentRunId: forkB.runId, messages: 'two' })
      .result();
    await first.execute({ threadId: 't', parentRunId: fromB.runId, messages: 'three' }).result();

    // Each request as sent: no request saw another's change, nor another branch's items.
    const sent = [
      ['one'],
      ['one', 'answer one', 'fork a'],
      ['one', 'answer one', 'fork b'],
      ['one', 'answer one', 'fork b', 'fork b', 'two'],
      ['one', 'answer one', 'fork b', 'fork b', 'two', 'from B', 'three'],
    ];
    expect(seen).toEqual([sent[0], sent[1], sent[2], sent[4]]);
    expect(texts(model.requests[3]?.items ?? [])).toEqual(sent[3]);
    // What is stored never saw the model's change.
    expect(texts(await store.loadItems('t'))).not.toContain('vandalised');
  });

  it('a resume from a stale read loses to the client that claimed the pause (run_claimed), then reads again', async () => {
    const store = new CountingStore();
    let ran = 0;
    const pay = tool({
      name: 'pay',
      description: 'Pays.',
      input: z.object({}),
      needsApproval: true,
      execute: () => {
        ran++;
        return 'paid';
      },
    });
    const model = mockModel([
      toolCallTurn([{ name: 'pay', arguments: {}, callId: 'c_pay' }]),
      textTurn('Paid.'),
    ]);
    const tab = new Agent({ name: 'tab', history: store, model, tools: [pay] });
    const other = new Agent({ name: 'other', history: store, model, tools: [pay] });
    const paused = await tab.execute({ threadId: 't', messages: 'pay' }).result();
    expect(paused.status).toBe('paused');
    await tab.loadThread('t');
    const cursor = store.answers.at(-1)?.changes.cursor;

    const resumed = await other
      .execute({ threadId: 't', resolutions: [{ callId: 'c_pay', action: 'approve' }] })
      .result();
    expect(resumed.status).toBe('completed');

    // The tab's next read races the other client's write: it still sees the pause.
    store.staleOnce = cursor;
    const late = await tab
      .execute({ threadId: 't', resolutions: [{ callId: 'c_pay', action: 'approve' }] })
      .result();
    expect(late.status).toBe('failed');
    expect(late.error?.code).toBe('run_claimed');
    expect(ran).toBe(1);
    // The refused claim read the thread again: the tab now holds the completed run.
    const [row] = await tab.loadThread('t');
    expect(row).toMatchObject({ status: 'completed' });
  });
});
