import { expect, it } from 'vitest';
import { isSwitchboardError } from '../errors/switchboard-error.ts';
import type { HistoryStore, RunRecord } from './history-store.ts';
import { branchPath, selectedLeaf, siblingsOf } from './run-tree.ts';

/** A completed run row with a parent link (`undefined`: an old row without one). */
function run(
  runId: string,
  createdAt: number,
  text: string,
  parentRunId: string | null | undefined,
): RunRecord {
  const row: RunRecord = {
    runId,
    threadId: 't1',
    status: 'completed',
    items: [
      { type: 'message', role: 'user', content: text },
      { type: 'message', role: 'assistant', content: `answer to ${text}` },
    ],
    createdAt,
    updatedAt: createdAt + 1,
  };
  if (parentRunId !== undefined) row.parentRunId = parentRunId;
  return row;
}

/**
 * The branch part of the {@link HistoryStore} contract (docs/conversations.md, "Branches"): parent
 * links kept as written, and the thread's selected branch. Registered by `describeHistoryStore`
 * inside its `describe`, so every store runs it; `current` gives the test's harness.
 */
export function describeBranchContract(
  current: () => { store: HistoryStore; reopen?: () => HistoryStore },
): void {
  it('branches: keeps parent links (a string, null, or none on old rows) as written', async () => {
    const { store } = current();
    // An old linear thread (no links), then an edit of its second message and one of its first.
    const rows = [
      run('a', 1_000, 'first', undefined),
      run('b', 2_000, 'second', undefined),
      run('b2', 3_000, 'second, edited', 'a'),
      run('a2', 4_000, 'first, edited', null),
    ];
    for (const row of rows) await store.compareAndSetRun(row, 0);
    const loaded = await store.loadRuns('t1');
    expect(loaded).toEqual(rows.map((row) => ({ ...row, version: 1 })));
    expect(loaded.map((row) => Object.hasOwn(row, 'parentRunId'))).toEqual([
      false,
      false,
      true,
      true,
    ]);
    expect(branchPath(loaded, 'b2').map((row) => row.runId)).toEqual(['a', 'b2']);
    expect(siblingsOf(loaded, 'b')).toEqual(['b', 'b2']);
    expect(siblingsOf(loaded, 'a2')).toEqual(['a', 'a2']);
    // No selection stored: the newest run is the selected leaf.
    expect(selectedLeaf(loaded, await store.loadBranchSelection('t1'))).toBe('a2');
  });

  it('branches: stores the selected branch, keeps it through saves, drops it with the thread', async () => {
    const { store } = current();
    expect(await store.loadBranchSelection('t1')).toBeUndefined();
    // An unknown thread is ignored: nothing is created.
    await store.selectBranch('t1', { leafRunId: 'a', selectedAt: 10 });
    expect(await store.loadBranchSelection('t1')).toBeUndefined();
    expect(await store.listThreads()).toEqual([]);

    await store.saveRun(run('a', 1_000, 'first', null));
    await store.saveRun(run('a2', 2_000, 'first, edited', null));
    await store.selectBranch('t1', { leafRunId: 'a', selectedAt: 2_500 });
    expect(await store.loadBranchSelection('t1')).toEqual({ leafRunId: 'a', selectedAt: 2_500 });
    await store.selectBranch('t1', { leafRunId: 'a2', selectedAt: 2_600 });
    // A run saved later (a resumed or renewed row) leaves the selection alone.
    await store.saveRun({ ...run('a', 1_000, 'first', null), updatedAt: 5_000 });
    expect(await store.loadBranchSelection('t1')).toEqual({ leafRunId: 'a2', selectedAt: 2_600 });
    expect(await store.loadBranchSelection('other')).toBeUndefined();
    const reopened = current().reopen?.();
    if (reopened !== undefined) {
      expect(await reopened.loadBranchSelection('t1')).toEqual({
        leafRunId: 'a2',
        selectedAt: 2_600,
      });
    }

    await store.deleteThread('t1');
    await store.saveRun(run('c', 9_000, 'again', null));
    expect(await store.loadBranchSelection('t1')).toBeUndefined();
  });

  it('branches: rejects selection calls with `aborted` when the signal has aborted', async () => {
    const { store } = current();
    await store.saveRun(run('a', 1_000, 'first', null));
    const controller = new AbortController();
    controller.abort(new Error('user left'));
    const { signal } = controller;
    const outcome = (promise: Promise<unknown>) =>
      promise.then(
        () => 'resolved',
        (error: unknown) => (isSwitchboardError(error, 'aborted') ? 'aborted' : error),
      );
    expect(
      await outcome(store.selectBranch('t1', { leafRunId: 'a', selectedAt: 5 }, { signal })),
    ).toBe('aborted');
    expect(await outcome(store.loadBranchSelection('t1', { signal }))).toBe('aborted');
    expect(await store.loadBranchSelection('t1')).toBeUndefined();
  });
}
