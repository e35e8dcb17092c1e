import { describe, expect, it } from 'vitest';
import type { RunRecord } from './history-store.ts';
import {
  branchPath,
  branchPositions,
  newestLeafUnder,
  parentsOf,
  selectedLeaf,
  siblingsOf,
} from './run-tree.ts';

function run(runId: string, createdAt: number, parentRunId?: string | null): RunRecord {
  const row: RunRecord = {
    runId,
    threadId: 't',
    status: 'completed',
    items: [{ type: 'message', role: 'user', content: runId }],
    createdAt,
    updatedAt: createdAt,
  };
  if (parentRunId !== undefined) row.parentRunId = parentRunId;
  return row;
}

// a ─ b ─ c        (old rows: no links, a linear chain)
//   ├ b2 ─ c2 ─ d2
//   └ b3
// a2               (an edit of the first message)
const RUNS = [
  run('a', 1),
  run('b', 2),
  run('c', 3),
  run('b2', 4, 'a'),
  run('c2', 5, 'b2'),
  run('b3', 6, 'a'),
  run('a2', 7, null),
  run('d2', 8, 'c2'),
];
const ids = (runs: readonly RunRecord[]) => runs.map((row) => row.runId);

describe('run tree', () => {
  it('reads rows without a link as following the previous run', () => {
    expect([...parentsOf(RUNS)]).toEqual([
      ['a', null],
      ['b', 'a'],
      ['c', 'b'],
      ['b2', 'a'],
      ['c2', 'b2'],
      ['b3', 'a'],
      ['a2', null],
      ['d2', 'c2'],
    ]);
  });

  it('gives the path from the root to a run, and nothing for an unknown run', () => {
    expect(ids(branchPath(RUNS, 'd2'))).toEqual(['a', 'b2', 'c2', 'd2']);
    expect(ids(branchPath(RUNS, 'c'))).toEqual(['a', 'b', 'c']);
    expect(ids(branchPath(RUNS, 'a2'))).toEqual(['a2']);
    expect(branchPath(RUNS, 'missing')).toEqual([]);
    expect(branchPath(RUNS, undefined)).toEqual([]);
  });

  it('lists siblings oldest first and their positions along a path', () => {
    expect(siblingsOf(RUNS, 'b2')).toEqual(['b', 'b2', 'b3']);
    expect(siblingsOf(RUNS, 'a')).toEqual(['a', 'a2']);
    expect(siblingsOf(RUNS, 'missing')).toEqual([]);
    const positions = branchPositions(RUNS, branchPath(RUNS, 'd2'));
    expect(positions.get('a')).toEqual({ index: 0, siblings: ['a', 'a2'] });
    expect(positions.get('b2')).toEqual({ index: 1, siblings: ['b', 'b2', 'b3'] });
    expect(positions.get('d2')).toEqual({ index: 0, siblings: ['d2'] });
  });

  it('switching lands on the newest leaf below a run', () => {
    expect(newestLeafUnder(RUNS, 'a')).toBe('b3');
    expect(newestLeafUnder(RUNS, 'b2')).toBe('d2');
    expect(newestLeafUnder(RUNS, 'c')).toBe('c');
  });

  it('selects the stored leaf unless a run was created after the choice', () => {
    expect(selectedLeaf([], undefined)).toBeUndefined();
    expect(selectedLeaf(RUNS, undefined)).toBe('d2');
    expect(selectedLeaf(RUNS, { leafRunId: 'c', selectedAt: 8 })).toBe('c');
    expect(selectedLeaf(RUNS, { leafRunId: 'c', selectedAt: 7 })).toBe('d2');
    expect(selectedLeaf(RUNS, { leafRunId: 'gone', selectedAt: 9 })).toBe('d2');
  });
});
