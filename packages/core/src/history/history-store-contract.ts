import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSwitchboardError } from '../errors/switchboard-error.ts';
import type { Item } from '../vocabulary/items.ts';
import type { HistoryStore, RunRecord, RunState } from './history-store.ts';
import { describeBranchContract } from './history-branches-contract.ts';
import { describeRunChangesContract } from './history-changes-contract.ts';

/**
 * What a {@link describeHistoryStore} suite needs for one test: a store over fresh, empty
 * storage, and optionally a way to open the same storage again and to release it.
 */
export interface HistoryStoreHarness {
  store: HistoryStore;
  /** A second store over the same storage, as after a page reload. Absent for memory stores. */
  reopen?: () => HistoryStore;
  /** Releases the storage (closes databases, removes temporary files). */
  dispose?: () => Promise<void> | void;
}

/** A user message item. */
export function userMessage(content: string): Item {
  return { type: 'message', role: 'user', content };
}

/** An assistant message item. */
export function assistantMessage(content: string): Item {
  return { type: 'message', role: 'assistant', content };
}

/** A completed run row of `threadId` created at `createdAt` (ms), updated 1 ms later. */
export function makeRun(
  threadId: string,
  runId: string,
  createdAt: number,
  items: Item[],
  extra: Partial<RunRecord> = {},
): RunRecord {
  return {
    runId,
    threadId,
    status: 'completed',
    items,
    createdAt,
    updatedAt: createdAt + 1,
    ...extra,
  };
}

/** A paused run's state with an approval and an MRTR elicitation, nested plain data. */
export function sampleRunState(): RunState {
  return {
    version: 1,
    pending: [
      {
        call: {
          type: 'function_call',
          callId: 'call-1',
          name: 'delete_file',
          arguments: '{"p":1}',
        },
        interrupt: {
          callId: 'call-1',
          toolName: 'delete_file',
          arguments: { p: 1 },
          mode: 'approval',
        },
      },
      {
        call: { type: 'function_call', callId: 'call-2', name: 'book', arguments: '{}' },
        interrupt: {
          callId: 'call-2',
          toolName: 'book',
          server: 'travel',
          arguments: {},
          mode: 'form',
          message: 'Which seat?',
          requestedSchema: { type: 'object', properties: { seat: { type: 'string' } } },
        },
        resumeState: {
          requestState: 'opaque-state',
          inputRequests: { seat: { method: 'elicitation/create', nested: [1, null, true] } },
        },
      },
    ],
    activatedTools: ['search_flights'],
  };
}

async function expectAborted(promise: Promise<unknown>): Promise<void> {
  const error: unknown = await promise.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(isSwitchboardError(error, 'aborted')).toBe(true);
}

/**
 * The behaviour every {@link HistoryStore} shares (docs/architecture.md, "Where state lives"), as a
 * Vitest suite. Call it from
 * each implementation's test file; `makeStore` runs before every test.
 */
export function describeHistoryStore(
  name: string,
  makeStore: () => HistoryStoreHarness | Promise<HistoryStoreHarness>,
): void {
  describe(`${name} (HistoryStore contract)`, () => {
    let harness: HistoryStoreHarness;
    let store: HistoryStore;

    beforeEach(async () => {
      harness = await makeStore();
      store = harness.store;
    });

    afterEach(async () => {
      await harness.dispose?.();
    });

    it('returns nothing for an unknown thread', async () => {
      expect(await store.loadItems('missing')).toEqual([]);
      expect(await store.loadRuns('missing')).toEqual([]);
      expect(await store.listThreads()).toEqual([]);
    });

    it('round-trips runs, items, usage, errors and run state as plain data', async () => {
      const first = makeRun('t1', 'r1', 1_000, [userMessage('Hello'), assistantMessage('Hi')], {
        usage: { inputTokens: 10, outputTokens: 5, cachedInputTokens: 2 },
        lastSequence: 7,
        parentCall: { threadId: 'parent-thread', runId: 'parent-run', callId: 'call_9' },
        modelFailures: [
          {
            model: 'anthropic/claude',
            attempt: 1,
            code: 'model_error',
            status: 529,
            message: 'The model provider is overloaded (HTTP 529).',
            then: { action: 'fallback', to: 'openai-chat/backup' },
            at: 900,
          },
          {
            model: 'openai-chat/backup',
            attempt: 1,
            code: 'timeout',
            message: 'No answer in time.',
            then: { action: 'retry', delayMs: 1000 },
            at: 950,
          },
        ],
      });
      const second = makeRun(
        't1',
        'r2',
        2_000,
        [
          userMessage('Delete it'),
          { type: 'function_call', callId: 'call-1', name: 'delete_file', arguments: '{"p":1}' },
          {
            type: 'function_call_output',
            callId: 'call-0',
            output: {
              text: 'done',
              isError: true,
              parts: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }],
              structuredContent: { ok: false, list: [1, 2] },
              error: { code: -32_000, message: 'boom' },
            },
          },
        ],
        {
          status: 'paused',
          state: sampleRunState(),
          error: { code: 'tool_execution_failed', message: 'boom' },
        },
      );
      await store.saveRun(first);
      await store.saveRun(second);

      expect(await store.loadRuns('t1')).toEqual([first, second]);
      expect(await store.loadItems('t1')).toEqual([...first.items, ...second.items]);
    });

    it('hands out copies: mutating a saved or loaded record changes nothing stored', async () => {
      const run = makeRun('t1', 'r1', 1_000, [userMessage('Hello')], { state: sampleRunState() });
      await store.saveRun(run);
      run.items.push(assistantMessage('mutated'));
      const [loaded] = await store.loadRuns('t1');
      loaded?.items.push(assistantMessage('mutated again'));
      loaded?.state?.pending.pop();

      const [again] = await store.loadRuns('t1');
      expect(again?.items).toEqual([userMessage('Hello')]);
      expect(again?.state).toEqual(sampleRunState());
    });

    it('upserts a run row by runId, keeping its place in the thread', async () => {
      await store.saveRun(makeRun('t1', 'r1', 1_000, [userMessage('one')]));
      await store.saveRun(
        makeRun('t1', 'r2', 2_000, [userMessage('two')], {
          status: 'paused',
          state: sampleRunState(),
          updatedAt: 2_001,
        }),
      );
      await store.saveRun(makeRun('t1', 'r3', 3_000, [userMessage('three')]));

      const resumed = makeRun('t1', 'r2', 2_000, [userMessage('two'), assistantMessage('done')], {
        updatedAt: 4_000,
        lastSequence: 12,
      });
      await store.saveRun(resumed);

      const runs = await store.loadRuns('t1');
      expect(runs.map((run) => run.runId)).toEqual(['r1', 'r2', 'r3']);
      expect(runs[1]).toEqual(resumed);
      expect(runs[1]?.state).toBeUndefined();
      expect((await store.listThreads())[0]?.updatedAt).toBe(4_000);
    });

    it('loads a thread of many runs in createdAt order, whatever the save order', async () => {
      const count = 40;
      const runs = Array.from({ length: count }, (_, index) =>
        makeRun('t1', `run-${String(count - index).padStart(3, '0')}`, 10_000 + index * 10, [
          userMessage(`message ${index}`),
          assistantMessage(`reply ${index}`),
        ]),
      );
      // Odd positions first, then even ones, so neither insertion nor runId order matches.
      const saveOrder = [
        ...runs.filter((_, index) => index % 2 === 1),
        ...runs.filter((_, index) => index % 2 === 0),
      ];
      for (const run of saveOrder) await store.saveRun(run);

      expect(await store.loadRuns('t1')).toEqual(runs);
      expect(await store.loadItems('t1')).toEqual(runs.flatMap((run) => run.items));
    });

    it('keeps threads apart', async () => {
      await store.saveRun(makeRun('a', 'a1', 1_000, [userMessage('in a')]));
      await store.saveRun(makeRun('b', 'b1', 1_500, [userMessage('in b')]));
      await store.saveRun(makeRun('a', 'a2', 2_000, [assistantMessage('more a')]));

      expect((await store.loadRuns('a')).map((run) => run.runId)).toEqual(['a1', 'a2']);
      expect(await store.loadItems('b')).toEqual([userMessage('in b')]);
    });

    it('lists threads most recently updated first, titled by their first user message', async () => {
      await store.saveRun(makeRun('old', 'o1', 1_000, [userMessage('  Old   question \n here ')]));
      await store.saveRun(makeRun('new', 'n1', 3_000, [userMessage('x'.repeat(200))]));
      await store.saveRun(
        makeRun('middle', 'm1', 2_000, [
          { type: 'message', role: 'system', content: 'be nice' },
          assistantMessage('Welcome'),
        ]),
      );

      let threads = await store.listThreads();
      expect(threads.map((thread) => thread.threadId)).toEqual(['new', 'middle', 'old']);
      expect(threads[0]?.title).toBe(`${'x'.repeat(79)}…`);
      expect(threads[1]?.title).toBe('New thread');
      expect(threads[2]).toEqual({
        threadId: 'old',
        title: 'Old question here',
        createdAt: 1_000,
        updatedAt: 1_001,
      });

      // A later run updates the thread; the first user message it now has becomes the title.
      await store.saveRun(makeRun('middle', 'm2', 5_000, [userMessage('Finally a question')]));
      await store.saveRun(makeRun('old', 'o2', 4_000, [userMessage('Not the title')]));
      threads = await store.listThreads();
      expect(threads.map((thread) => [thread.threadId, thread.title])).toEqual([
        ['middle', 'Finally a question'],
        ['old', 'Old question here'],
        ['new', `${'x'.repeat(79)}…`],
      ]);
      expect(threads[0]).toMatchObject({ createdAt: 2_000, updatedAt: 5_001 });
    });

    it('keeps a renamed title through later saves and ignores unknown ids', async () => {
      await store.saveRun(makeRun('t1', 'r1', 1_000, [userMessage('Original')]));
      await store.renameThread('t1', 'My trip');
      await store.saveRun(makeRun('t1', 'r2', 2_000, [userMessage('Another question')]));
      await store.saveRun(
        makeRun('t1', 'r1', 1_000, [userMessage('Original')], { updatedAt: 3_000 }),
      );
      await store.renameThread('missing', 'Nothing');

      expect(await store.listThreads()).toEqual([
        { threadId: 't1', title: 'My trip', createdAt: 1_000, updatedAt: 3_000 },
      ]);
    });

    it('deletes a thread with all its runs and leaves the others alone', async () => {
      await store.saveRun(makeRun('a', 'a1', 1_000, [userMessage('in a')]));
      await store.saveRun(makeRun('a', 'a2', 2_000, [assistantMessage('more a')]));
      await store.saveRun(makeRun('b', 'b1', 1_500, [userMessage('in b')]));

      await store.deleteThread('a');
      await store.deleteThread('missing');

      expect(await store.loadRuns('a')).toEqual([]);
      expect(await store.loadItems('b')).toEqual([userMessage('in b')]);
      expect((await store.listThreads()).map((thread) => thread.threadId)).toEqual(['b']);

      // The id can be used again, starting empty.
      await store.saveRun(makeRun('a', 'a3', 5_000, [userMessage('fresh start')]));
      expect((await store.loadRuns('a')).map((run) => run.runId)).toEqual(['a3']);
      expect((await store.listThreads())[0]).toEqual({
        threadId: 'a',
        title: 'fresh start',
        createdAt: 5_000,
        updatedAt: 5_001,
      });
    });

    it('treats thread ids as opaque strings', async () => {
      const ids = ['a/b', '../escape', 'Thread', 'thread', 'con', 'ünïcödé 🚀', ' spaced .', ''];
      for (const [index, threadId] of ids.entries()) {
        await store.saveRun(
          makeRun(threadId, `run-${index}`, 1_000 + index, [userMessage(threadId || 'empty')]),
        );
      }
      for (const [index, threadId] of ids.entries()) {
        expect((await store.loadRuns(threadId)).map((run) => run.runId)).toEqual([`run-${index}`]);
      }
      expect((await store.listThreads()).map((thread) => thread.threadId)).toEqual(
        [...ids].reverse(),
      );
    });

    it('sees the same data from a new store over the same storage (a reload)', async (context) => {
      // A store without durable storage (MemoryHistoryStore) cannot be reopened: nothing to test.
      if (harness.reopen === undefined) return context.skip();
      await store.saveRun(
        makeRun('t1', 'r1', 1_000, [userMessage('Hello')], { state: sampleRunState() }),
      );
      await store.saveRun(makeRun('t2', 'r2', 2_000, [userMessage('Other')]));
      await store.renameThread('t2', 'Renamed');

      const reloaded = harness.reopen();
      expect(await reloaded.loadRuns('t1')).toEqual([
        makeRun('t1', 'r1', 1_000, [userMessage('Hello')], { state: sampleRunState() }),
      ]);
      expect(await reloaded.listThreads()).toEqual([
        { threadId: 't2', title: 'Renamed', createdAt: 2_000, updatedAt: 2_001 },
        { threadId: 't1', title: 'Hello', createdAt: 1_000, updatedAt: 1_001 },
      ]);

      // The reloaded store keeps appending where the first left off.
      await reloaded.saveRun(makeRun('t1', 'r3', 3_000, [assistantMessage('Back again')]));
      expect((await reloaded.loadRuns('t1')).map((run) => run.runId)).toEqual(['r1', 'r3']);
      expect((await reloaded.listThreads())[0]?.threadId).toBe('t1');
    });

    it('compare-and-set: writes only over the expected version, bumping it by one', async () => {
      const run = makeRun('t1', 'r1', 1_000, [userMessage('Hello')], { status: 'running' });
      expect(await store.compareAndSetRun(run, 0)).toEqual({ written: true, version: 1 });
      const stale = await store.compareAndSetRun({ ...run, status: 'failed' }, 0);
      expect(stale).toEqual({ written: false, current: { ...run, version: 1 } });

      const lease = { owner: 'tab-a', expiresAt: 9_000 };
      const next = { ...run, status: 'paused' as const, state: sampleRunState(), lease };
      expect(await store.compareAndSetRun(next, 1)).toEqual({ written: true, version: 2 });
      expect(await store.loadRuns('t1')).toEqual([{ ...next, version: 2 }]);
      expect(await store.compareAndSetRun(next, 1)).toMatchObject({ written: false });
      expect((await store.listThreads())[0]).toMatchObject({ threadId: 't1', title: 'Hello' });

      // A row written by saveRun without a version counts as version 0.
      await store.saveRun(makeRun('t1', 'r2', 2_000, [userMessage('old row')]));
      expect(await store.compareAndSetRun(makeRun('t1', 'r2', 2_000, []), 1)).toMatchObject({
        written: false,
      });
      expect(await store.compareAndSetRun(makeRun('t1', 'r2', 2_000, []), 0)).toEqual({
        written: true,
        version: 1,
      });
    });

    it('compare-and-set: of many writers racing on one version, exactly one wins', async () => {
      // A second instance over the same storage (another tab, another process) when there is one.
      const other = harness.reopen?.() ?? store;
      const base = makeRun('t1', 'r1', 1_000, [userMessage('Hello')], { status: 'paused' });
      expect(await store.compareAndSetRun(base, 0)).toMatchObject({ written: true });
      const attempts = Array.from({ length: 8 }, (_, index) =>
        (index % 2 === 0 ? store : other).compareAndSetRun(
          { ...base, status: 'running', lease: { owner: `client-${index}`, expiresAt: 5_000 } },
          1,
        ),
      );
      const results = await Promise.all(attempts);
      const winners = results.flatMap((result, index) => (result.written ? [index] : []));
      expect(winners).toHaveLength(1);
      const [stored] = await other.loadRuns('t1');
      expect(stored).toMatchObject({ version: 2, lease: { owner: `client-${winners[0]}` } });
    });

    it('keeps every thread when two instances save different threads at once', async () => {
      const other = harness.reopen?.() ?? store;
      await Promise.all(
        Array.from({ length: 6 }, (_, index) =>
          (index % 2 === 0 ? store : other).compareAndSetRun(
            makeRun(`t${index}`, `r${index}`, 1_000 + index, [userMessage(`thread ${index}`)]),
            0,
          ),
        ),
      );
      const threads = await store.listThreads();
      expect(threads.map((thread) => thread.threadId).sort()).toEqual([
        't0',
        't1',
        't2',
        't3',
        't4',
        't5',
      ]);
    });

    it('rejects every call with `aborted` when the signal is already aborted', async () => {
      await store.saveRun(makeRun('t1', 'r1', 1_000, [userMessage('Hello')]));
      const controller = new AbortController();
      controller.abort(new Error('user left'));
      const signal = controller.signal;

      await expectAborted(
        store.saveRun(makeRun('t1', 'r2', 2_000, [userMessage('no')]), { signal }),
      );
      await expectAborted(store.loadRuns('t1', { signal }));
      await expectAborted(store.loadItems('t1', { signal }));
      await expectAborted(store.listThreads({ signal }));
      await expectAborted(store.renameThread('t1', 'no', { signal }));
      await expectAborted(store.deleteThread('t1', { signal }));

      // Nothing was written or removed.
      expect((await store.loadRuns('t1')).map((run) => run.runId)).toEqual(['r1']);
      expect((await store.listThreads())[0]?.title).toBe('Hello');
    });

    it('writes nothing when the signal aborts while a save is in flight', async () => {
      const controller = new AbortController();
      const saving = store.saveRun(makeRun('t1', 'r1', 1_000, [userMessage('Hello')]), {
        signal: controller.signal,
      });
      controller.abort();
      await expectAborted(saving);
      expect(await store.loadRuns('t1')).toEqual([]);
      expect(await store.listThreads()).toEqual([]);
    });

    describeBranchContract(() => harness);
    describeRunChangesContract(() => harness);
  });
}
