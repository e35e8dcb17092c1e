/**
 * `npm run bench`: runs every benchmark of the table on 127.0.0.1, one after another,
 * and writes `bench/results/latest.json` and `bench/results/latest.md`.
 *
 * `npm run bench -- --only=tool-call,bundle-size` runs a subset (the report says so).
 */
import { cpus, loadavg, totalmem, platform, release } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Benchmark } from './benchmark.ts';
import { bundleSizeBenchmark } from './benchmarks/bundle-size.ts';
import { deferredPromptBenchmark } from './benchmarks/deferred-prompt.ts';
import { indexedDbThreadBenchmark } from './benchmarks/indexeddb-thread.ts';
import { listToolsColdBenchmark } from './benchmarks/list-tools-cold.ts';
import { manyTabsBenchmark } from './benchmarks/many-tabs.ts';
import { memoryGrowthBenchmark } from './benchmarks/memory-growth.ts';
import { restateRunsBenchmark } from './benchmarks/restate-runs.ts';
import { schemaCacheBenchmark } from './benchmarks/schema-cache.ts';
import { stepSeamBenchmark } from './benchmarks/step-seam.ts';
import { streamThroughputBenchmark } from './benchmarks/stream-throughput.ts';
import { toolCallBenchmark } from './benchmarks/tool-call.ts';
import { threadLengthBenchmark } from './benchmarks/thread-length.ts';
import { toolSearchBenchmark } from './benchmarks/tool-search.ts';
import { useAgentRenderBenchmark } from './benchmarks/use-agent-render.ts';
import { chromiumVersion } from './browser/chromium.ts';
import { summaryTable, writeReport, type BenchmarkResult, type BenchReport } from './report.ts';
import { startBenchServers } from './servers/start-bench-servers.ts';

const BENCHMARKS: readonly Benchmark[] = [
  toolCallBenchmark,
  listToolsColdBenchmark,
  schemaCacheBenchmark,
  deferredPromptBenchmark,
  toolSearchBenchmark,
  streamThroughputBenchmark,
  useAgentRenderBenchmark,
  indexedDbThreadBenchmark,
  bundleSizeBenchmark,
  memoryGrowthBenchmark,
  manyTabsBenchmark,
  threadLengthBenchmark,
  stepSeamBenchmark,
  restateRunsBenchmark,
];

function parseOnly(argv: readonly string[]): string[] | undefined {
  const flag = argv.find((argument) => argument.startsWith('--only='));
  if (flag === undefined) return undefined;
  const keys = flag
    .slice('--only='.length)
    .split(',')
    .map((key) => key.trim())
    .filter((key) => key !== '');
  const unknown = keys.filter((key) => !BENCHMARKS.some((benchmark) => benchmark.key === key));
  if (unknown.length > 0) {
    throw new Error(
      `Unknown benchmark(s): ${unknown.join(', ')}. Known: ${BENCHMARKS.map((b) => b.key).join(', ')}`,
    );
  }
  return keys;
}

async function main(): Promise<void> {
  const only = parseOnly(process.argv.slice(2));
  const selected = BENCHMARKS.filter(
    (benchmark) => only === undefined || only.includes(benchmark.key),
  );
  const startedAt = new Date();
  const loadAtStart = loadavg();
  const runStart = performance.now();
  process.stderr.write(
    `bench: ${selected.length} benchmark(s), load average ${loadAtStart.map((v) => v.toFixed(1)).join(' ')}\n`,
  );

  const servers = await startBenchServers({ toolCount: 1000, pageSize: 20 });
  const results: BenchmarkResult[] = [];
  try {
    for (const benchmark of selected) {
      const log = (message: string) => process.stderr.write(`[${benchmark.key}] ${message}\n`);
      log('start');
      const start = performance.now();
      const identity = {
        id: benchmark.id,
        key: benchmark.key,
        title: benchmark.title,
        baseline: benchmark.baseline,
        target: benchmark.target,
      };
      try {
        const outcome = await benchmark.run({ servers, log });
        results.push({ ...identity, ...outcome, durationMs: performance.now() - start });
      } catch (error) {
        const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
        log(`failed: ${message}`);
        results.push({
          ...identity,
          verdict: 'not measured',
          headline: `not measured: ${error instanceof Error ? error.message : String(error)}`,
          figures: [],
          method: '',
          notes: [`The benchmark threw: ${message.split('\n').slice(0, 4).join(' ')}`],
          durationMs: performance.now() - start,
        });
      }
      log(`done in ${((performance.now() - start) / 1000).toFixed(1)} s`);
    }
  } finally {
    await servers.close();
  }

  const finishedAt = new Date();
  const chromium = selected.some((benchmark) =>
    ['schema-cache', 'use-agent-render', 'indexeddb-thread', 'many-tabs', 'thread-length'].includes(
      benchmark.key,
    ),
  )
    ? await chromiumVersion().catch(() => undefined)
    : undefined;
  const cpuList = cpus();
  const report: BenchReport = {
    environment: {
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      durationMs: performance.now() - runStart,
      node: process.versions.node,
      platform: `${platform()} ${release()}`,
      cpus: { count: cpuList.length, model: cpuList[0]?.model.trim() ?? 'unknown' },
      memoryGiB: totalmem() / 1024 ** 3,
      loadAverage: { start: loadAtStart, end: loadavg() },
      ...(chromium === undefined ? {} : { chromium }),
      ...(only === undefined ? {} : { only }),
    },
    results,
  };
  await writeReport(new URL('./results/', import.meta.url), report);
  process.stdout.write(
    `${summaryTable(results)}\n\nWrote bench/results/latest.json and latest.md\n`,
  );
}

await main();
