/**
 * The heap sampling both children of benchmark 10 share (ours, `memory-growth-child.ts`, and the
 * control, `memory-growth-control-child.ts`), so that the two are measured the same way: runs one
 * run at a time up to each checkpoint of `BENCH_CHECKPOINTS` and there takes the heap after full
 * garbage collection (in total and its V8 code space apart), the live instances of the objects a
 * leak would pile up and the active handles. Each checkpoint is printed on stdout as one JSON
 * line `{"checkpoint": …}` as soon as it is taken, then `{"done": {"ms": …}}`.
 *
 * Nothing of a checkpoint stays in the child once printed (stdout to a pipe is written
 * synchronously on Linux): a list of checkpoints kept until the end would hold more records at
 * the end cluster than at the start, and its records and their growing backing array in both
 * children would count as growth of a few KiB.
 */
import { Session } from 'node:inspector/promises';
import { getHeapSpaceStatistics } from 'node:v8';

/** One checkpoint: heap samples and live instance counts after `runs` runs. */
export interface MemoryCheckpoint {
  runs: number;
  /** `heapUsed` after full GCs, repeated, in bytes. */
  heapSamples: number[];
  /**
   * V8's code space (compiled machine code) at each of `heapSamples`, in bytes: part of
   * `heapUsed`, grown by the JIT as it optimises hot functions, not by objects a run leaves.
   */
  codeSpaceSamples: number[];
  /** Live instances per counted kind (after a full GC). */
  instances: Record<string, number>;
  /**
   * Live weak references of the kind Node's `AbortSignal.any` keeps per dependant signal (its
   * internal `SafeWeakRef`; `undefined` when this Node keeps them otherwise). Node keeps them on
   * a long-lived source signal (seen on 20.20.2 and on 22.23.3: two per run on both while the MCP
   * SDK's transport combined its signal with each request's); flat since the session's transport
   * hands the SDK no request signal to combine.
   */
  abortSignalAnyWeakRefs: number | undefined;
  /** `process.getActiveResourcesInfo()` counted by type (timers, sockets, …). */
  resources: Record<string, number>;
  /** HTTP connections fetch opened so far. */
  connectionsOpened: number;
  /** Model calls that failed and were tried again so far. */
  modelRetries: number;
}

/** A line the child prints: a checkpoint, or the time all runs and checkpoints took. */
export type SamplingLine = { checkpoint: MemoryCheckpoint } | { done: { ms: number } };

/** Classes whose live instances are counted, by name. */
export type CountedKinds = Record<string, { prototype: object }>;

/** Counted in both children: the platform's objects a run creates and must let go. */
const PLATFORM_KINDS: CountedKinds = { AbortController, AbortSignal, ReadableStream };

const CHECKPOINTS = (process.env['BENCH_CHECKPOINTS'] ?? '10,100,350,600,850,1100')
  .split(',')
  .map(Number);
const SAMPLES = 7;
/** Reused by every checkpoint, so that sampling allocates the same at each. */
const heapSamples = new Float64Array(SAMPLES);
const codeSpaceSamples = new Float64Array(SAMPLES);

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');

/**
 * The prototype of the weak references Node keeps for `AbortSignal.any` (its internal
 * `SafeWeakRef`, reachable no other way): combine a signal once and read the source's set of
 * dependants. `undefined` on a Node that keeps them otherwise.
 */
function abortSignalAnyWeakRefPrototype(): object | undefined {
  const source = new AbortController().signal;
  AbortSignal.any([source]);
  const symbol = Object.getOwnPropertySymbols(source).find(
    (candidate) => candidate.description === 'kDependantSignals',
  );
  const dependants: unknown = symbol === undefined ? undefined : Reflect.get(source, symbol);
  if (typeof dependants !== 'object' || dependants === null || !(Symbol.iterator in dependants)) {
    return undefined;
  }
  const [first] = dependants as Iterable<unknown>;
  return typeof first === 'object' && first !== null
    ? (Object.getPrototypeOf(first) as object)
    : undefined;
}

/** Counts live instances with the inspector's `Runtime.queryObjects`. */
class InstanceCounter {
  private readonly inspector = new Session();
  readonly kinds: readonly string[];
  readonly weakRefPrototype = abortSignalAnyWeakRefPrototype();

  constructor(kinds: CountedKinds) {
    this.kinds = Object.keys(kinds);
    // Reachable from the inspector's global scope.
    (globalThis as { benchKinds?: CountedKinds }).benchKinds = {
      ...kinds,
      ...(this.weakRefPrototype === undefined
        ? {}
        : { AbortSignalAnyWeakRef: { prototype: this.weakRefPrototype } }),
    };
    this.inspector.connect();
  }

  async count(kind: string): Promise<number> {
    const { result } = await this.inspector.post('Runtime.evaluate', {
      expression: `globalThis.benchKinds[${JSON.stringify(kind)}].prototype`,
    });
    const { objects } = await this.inspector.post('Runtime.queryObjects', {
      prototypeObjectId: result.objectId as string,
    });
    const { result: count } = await this.inspector.post('Runtime.callFunctionOn', {
      objectId: objects.objectId as string,
      functionDeclaration: 'function () { return this.length; }',
      returnByValue: true,
    });
    await this.inspector.post('Runtime.releaseObject', { objectId: objects.objectId as string });
    await this.inspector.post('Runtime.releaseObject', { objectId: result.objectId as string });
    return count.value as number;
  }

  disconnect(): void {
    this.inspector.disconnect();
  }
}

/** A collection round that freed less than this counts as quiet. */
const QUIET_ROUND_BYTES = 4096;
const MAX_GC_ROUNDS = 12;

/**
 * Full GCs until two rounds in a row free less than {@link QUIET_ROUND_BYTES}. A single round is
 * not enough after runs: what it frees lets finalizers and stream/socket teardown run, which
 * releases more for the next round — measured here, the 3rd and 4th rounds after a burst of runs
 * still freed 150–250 KiB, which made the first of a checkpoint's samples an outlier that the
 * noise figure then took as its spread.
 */
async function settledGc(): Promise<void> {
  let previous = Number.POSITIVE_INFINITY;
  let quietRounds = 0;
  for (let round = 0; round < MAX_GC_ROUNDS && quietRounds < 2; round += 1) {
    gc?.();
    await new Promise((resolve) => setImmediate(resolve));
    const used = process.memoryUsage().heapUsed;
    quietRounds = previous - used < QUIET_ROUND_BYTES ? quietRounds + 1 : 0;
    previous = used;
  }
}

const codeSpaceUsed = () =>
  getHeapSpaceStatistics().find((space) => space.space_name === 'code_space')?.space_used_size ?? 0;

async function checkpoint(
  runs: number,
  counter: InstanceCounter,
  counts: { connectionsOpened(): number; modelRetries(): number },
): Promise<MemoryCheckpoint> {
  for (let sample = 0; sample < SAMPLES; sample += 1) {
    await settledGc();
    heapSamples[sample] = process.memoryUsage().heapUsed;
    codeSpaceSamples[sample] = codeSpaceUsed();
  }
  const instances: Record<string, number> = {};
  for (const kind of counter.kinds) instances[kind] = await counter.count(kind);
  const resources: Record<string, number> = {};
  for (const resource of process.getActiveResourcesInfo()) {
    resources[resource] = (resources[resource] ?? 0) + 1;
  }
  return {
    runs,
    heapSamples: Array.from(heapSamples),
    codeSpaceSamples: Array.from(codeSpaceSamples),
    instances,
    abortSignalAnyWeakRefs:
      counter.weakRefPrototype === undefined
        ? undefined
        : await counter.count('AbortSignalAnyWeakRef'),
    resources,
    connectionsOpened: counts.connectionsOpened(),
    modelRetries: counts.modelRetries(),
  };
}

const print = (line: SamplingLine) => process.stdout.write(`${JSON.stringify(line)}\n`);

/**
 * Runs `oneRun` one run at a time and prints a checkpoint at each of `BENCH_CHECKPOINTS`.
 * `kinds` are counted besides the platform's abort controllers, signals and readable streams;
 * `label` prefixes the progress lines on stderr.
 */
export async function sampleRuns(options: {
  label: string;
  oneRun: () => Promise<void>;
  kinds: CountedKinds;
  connectionsOpened(): number;
  modelRetries(): number;
}): Promise<void> {
  const counter = new InstanceCounter({ ...PLATFORM_KINDS, ...options.kinds });
  const started = performance.now();
  let done = 0;
  for (const target of CHECKPOINTS) {
    while (done < target) {
      await options.oneRun();
      done += 1;
    }
    print({ checkpoint: await checkpoint(done, counter, options) });
    process.stderr.write(`[${options.label}] ${done} runs\n`);
  }
  print({ done: { ms: performance.now() - started } });
  counter.disconnect();
}
