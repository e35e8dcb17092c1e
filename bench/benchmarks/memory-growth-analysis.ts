/**
 * The analysis of benchmark 10's children: the schedule of runs and checkpoints both children
 * follow, and the growth, noise and counts read from one child's checkpoints.
 */
import { median, slope } from '../stats.ts';
import type { MemoryCheckpoint } from './memory-heap-sampling.ts';

/**
 * Runs before the baseline checkpoint, not measured. Heap snapshots of the child (10, 100 and
 * 1,000 runs, diffed by node id) showed what the first runs fill, once: the agent's thread cache
 * (32 threads, full after 32 runs, ~22 KB), Node's resource-timing buffer (250 fetches, full
 * before run 100, ~127 KB), and V8's feedback vectors, inline caches and bytecode of the code
 * paths a run takes.
 */
export const WARMUP_RUNS = 100;
/** Runs measured after the warm-up: the 1,000. */
export const MEASURED_RUNS = 1_000;
/**
 * Each end of the measured runs is a cluster of checkpoints this many runs apart, and its heap
 * the median of theirs. Checkpoints 10 runs apart differed by up to ~40 KiB (either way, and back
 * 10 runs later), more than any single checkpoint's samples do (≤ 6 KiB): the heap after settled
 * GCs holds bounded tables whose capacity depends on what was live or awaiting cleanup when they
 * last grew or shrank — in snapshots 350 vs 1,100 runs, the backing table of undici's request
 * `FinalizationRegistry` 16 KB → 2 KB, the openai SDK's private-field `WeakMap` 1 → 2 KB, V8's
 * list of maps with `AsyncGenerator.prototype` 6.5 → 9.9 KB. One checkpoint at each end read
 * that state as growth or shrinkage of up to ~40 KiB; a leak of 40 bytes per run adds 0.4 KiB
 * over 10 runs and 40 KiB over the 1,000.
 */
export const CLUSTER_OFFSETS = [0, 10, 20, 30, 40];
const START = WARMUP_RUNS;
const END = WARMUP_RUNS + MEASURED_RUNS;
/** 10 shows the warm-up itself; the baseline is the cluster from {@link WARMUP_RUNS}. */
export const CHECKPOINTS = [
  10,
  ...CLUSTER_OFFSETS.map((offset) => START + offset),
  350,
  600,
  850,
  ...CLUSTER_OFFSETS.map((offset) => END + offset),
];

/**
 * A checkpoint's heap: the lowest of its samples. Every sample follows settled full GCs, so what
 * lifts one is work in flight when it was taken (seen: +90 to +270 KiB in old space for a sample
 * or three of seven, e.g. a connection's teardown), never less retained memory; a median
 * flipped between the two levels when they split 3–2, and moved a checkpoint by ~100 KiB.
 */
export const heap = (checkpoint: MemoryCheckpoint) => Math.min(...checkpoint.heapSamples);

/** The spread of the lowest three samples: how well the lowest one is pinned down. */
function spread(values: readonly number[]): number {
  const lowest = [...values].sort((a, b) => a - b).slice(0, 3);
  return Math.max(...lowest) - Math.min(...lowest);
}

export const codeSpace = (checkpoint: MemoryCheckpoint) => median(checkpoint.codeSpaceSamples);

const range = (values: readonly number[]) => Math.max(...values) - Math.min(...values);
/**
 * A cluster's range without its highest and lowest checkpoint: one checkpoint whose every
 * sample is lifted (seen: +110 to +280 KiB, in `heapUsed` but not in a heap snapshot taken
 * there) moves neither the median nor this.
 */
const middleRange = (values: readonly number[]) =>
  range([...values].sort((a, b) => a - b).slice(1, -1));

/** The checkpoints of the cluster that starts at `runs`. */
function cluster(checkpoints: readonly MemoryCheckpoint[], runs: number): MemoryCheckpoint[] {
  const found = checkpoints.filter((checkpoint) =>
    CLUSTER_OFFSETS.some((offset) => checkpoint.runs === runs + offset),
  );
  if (found.length !== CLUSTER_OFFSETS.length) throw new Error(`missing checkpoints at ${runs}`);
  return found;
}

/** Growth between the start cluster (after the warm-up) and the end cluster of one child. */
export function analyse(checkpoints: readonly MemoryCheckpoint[]) {
  const start = cluster(checkpoints, START).map(heap);
  const end = cluster(checkpoints, END).map(heap);
  const baseline = checkpoints.find((checkpoint) => checkpoint.runs === START);
  const last = checkpoints.at(-1);
  if (baseline === undefined || last === undefined) throw new Error('missing checkpoints');
  const measured = checkpoints.filter((checkpoint) => checkpoint.runs >= START);
  const runs = END - START;
  const samplingNoise = Math.max(...measured.map((checkpoint) => spread(checkpoint.heapSamples)));
  return {
    baseline,
    last,
    runs,
    startHeap: median(start),
    endHeap: median(end),
    growth: median(end) - median(start),
    codeGrowth: codeSpace(last) - codeSpace(baseline),
    /** The larger of the clusters' middle ranges. */
    noise: Math.max(middleRange(start), middleRange(end)),
    clusterRanges: [middleRange(start), middleRange(end)] as const,
    samplingNoise,
    slope: slope(
      measured.map((checkpoint) => checkpoint.runs),
      measured.map(heap),
    ),
    instancesGrew: Object.keys(last.instances).filter(
      (kind) => (last.instances[kind] ?? 0) > (baseline.instances[kind] ?? 0),
    ),
    resourcesGrew: Object.keys(last.resources).filter(
      (kind) => (last.resources[kind] ?? 0) > (baseline.resources[kind] ?? 0),
    ),
    connectionsOpened: last.connectionsOpened - baseline.connectionsOpened,
    modelRetries: last.modelRetries - baseline.modelRetries,
    weakRefsAdded:
      last.abortSignalAnyWeakRefs === undefined || baseline.abortSignalAnyWeakRefs === undefined
        ? undefined
        : last.abortSignalAnyWeakRefs - baseline.abortSignalAnyWeakRefs,
  };
}
