import type { BranchSelection, RunRecord } from './history-store.ts';

/**
 * A thread's runs as a tree of branches (docs/conversations.md, "Branches"): pure functions over
 * the rows `HistoryStore.loadRuns` returns (oldest first). Every run has one parent (or none: it
 * starts the thread); runs with the same parent are siblings, oldest first. A row without
 * `parentRunId` (written before branches) follows the run before it, so an old thread is one
 * linear branch.
 */

/** The parent run id of each run (`null`: starts the thread), by run id. */
export function parentsOf(runs: readonly RunRecord[]): Map<string, string | null> {
  const parents = new Map<string, string | null>();
  for (const [index, run] of runs.entries()) {
    parents.set(
      run.runId,
      run.parentRunId !== undefined ? run.parentRunId : (runs[index - 1]?.runId ?? null),
    );
  }
  return parents;
}

/**
 * The leaf of the selected branch: the stored selection when it names a run of `runs` and no
 * run was created after it, else the newest run (always a leaf: children come after their
 * parent). `undefined` for an empty thread. `hasRun`: whether `runs` has a run, when the caller
 * keeps an index of them (default: looks through `runs`).
 */
export function selectedLeaf(
  runs: readonly RunRecord[],
  selection: BranchSelection | undefined,
  hasRun: (runId: string) => boolean = (runId) => runs.some((run) => run.runId === runId),
): string | undefined {
  const newest = runs.at(-1);
  if (newest === undefined) return undefined;
  if (
    selection !== undefined &&
    newest.createdAt <= selection.selectedAt &&
    hasRun(selection.leafRunId)
  ) {
    return selection.leafRunId;
  }
  return newest.runId;
}

/** The runs from the thread's start to `runId`, root first; `[]` when `runId` is unknown. */
export function branchPath(runs: readonly RunRecord[], runId: string | undefined): RunRecord[] {
  const parents = parentsOf(runs);
  const byId = new Map(runs.map((run) => [run.runId, run]));
  const path: RunRecord[] = [];
  // A parent link can only point to an existing run; the bound stops a corrupt cycle.
  for (let id = runId ?? null; id !== null && path.length < runs.length;) {
    const run = byId.get(id);
    if (run === undefined) break;
    path.push(run);
    id = parents.get(id) ?? null;
  }
  return path.reverse();
}

/** The ids of `runId` and its siblings (same parent), oldest first. */
export function siblingsOf(runs: readonly RunRecord[], runId: string): string[] {
  const parents = parentsOf(runs);
  if (!parents.has(runId)) return [];
  const parent = parents.get(runId);
  return runs.filter((run) => parents.get(run.runId) === parent).map((run) => run.runId);
}

/**
 * The leaf reached from `runId` by following its newest child at each step: where switching
 * to `runId` lands (the most recent conversation below it).
 */
export function newestLeafUnder(runs: readonly RunRecord[], runId: string): string {
  const parents = parentsOf(runs);
  let leaf = runId;
  for (let steps = 0; steps < runs.length; steps++) {
    const child = runs.findLast((run) => parents.get(run.runId) === leaf);
    if (child === undefined) break;
    leaf = child.runId;
  }
  return leaf;
}

/** Where a run sits among its siblings: `index` from 0 of `siblings.length`, oldest first. */
export interface BranchPosition {
  index: number;
  /** The sibling run ids, this run's included, oldest first. */
  siblings: readonly string[];
}

/** The position among its siblings of every run of `path`, by run id. */
export function branchPositions(
  runs: readonly RunRecord[],
  path: readonly RunRecord[],
): Map<string, BranchPosition> {
  const parents = parentsOf(runs);
  const children = new Map<string | null, string[]>();
  for (const run of runs) {
    const parent = parents.get(run.runId) ?? null;
    const list = children.get(parent) ?? [];
    list.push(run.runId);
    children.set(parent, list);
  }
  const positions = new Map<string, BranchPosition>();
  for (const run of path) {
    const siblings = children.get(parents.get(run.runId) ?? null) ?? [run.runId];
    positions.set(run.runId, { index: siblings.indexOf(run.runId), siblings });
  }
  return positions;
}
