import type { BenchmarkResult } from './report.ts';
import type { BenchServers } from './servers/start-bench-servers.ts';

/** What every benchmark gets from the runner. */
export interface BenchContext {
  /** Demo MCP server + scripted model server, in their own process on 127.0.0.1. */
  servers: BenchServers;
  /** Progress output (stderr), prefixed with the benchmark key. */
  log(message: string): void;
}

/** What a benchmark returns; the runner adds identity, baseline, target and duration. */
export type BenchmarkOutcome = Omit<
  BenchmarkResult,
  'id' | 'key' | 'title' | 'baseline' | 'target' | 'durationMs'
>;

/** One benchmark of the table. */
export interface Benchmark {
  id: number;
  key: string;
  title: string;
  baseline: string;
  target: string;
  run(context: BenchContext): Promise<BenchmarkOutcome>;
}

/** Resolves after `milliseconds`. */
export function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
