import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Benchmark } from '../benchmark.ts';
import type { Figure } from '../report.ts';
import { median, slope } from '../stats.ts';
import type { MemoryCheckpoint } from './memory-growth-child.ts';

const CHILD = fileURLToPath(new URL('./memory-growth-child.ts', import.meta.url));
const TIMEOUT_MS = 240_000;

function runChild(environment: Record<string, string>): Promise<{
  checkpoints: MemoryCheckpoint[];
  ms: number;
}> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', CHILD], {
      env: { ...process.env, ...environment },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (data: Buffer) => (output += data.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) {
        reject(new Error(`memory child exited with ${code ?? signal}`));
        return;
      }
      try {
        resolve(JSON.parse(output.trim().split('\n').at(-1) ?? '') as never);
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

const spread = (values: readonly number[]) => Math.max(...values) - Math.min(...values);
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

export const memoryGrowthBenchmark: Benchmark = {
  id: 10,
  key: 'memory-growth',
  title: 'Memory after 1,000 runs with tool calls',
  baseline: 'after 10 runs',
  target: 'no growth beyond noise (no leaked listeners, pending maps or streams)',
  async run({ servers, log }) {
    log('child process: 1,000 agent runs, one MCP tool call each');
    const { checkpoints, ms } = await runChild({
      BENCH_MCP_URL: servers.modernUrl,
      BENCH_MODEL_URL: servers.modelUrl,
    });
    const first = checkpoints[0];
    const last = checkpoints.at(-1);
    if (first === undefined || last === undefined) throw new Error('no checkpoints');
    const heap = (checkpoint: MemoryCheckpoint) => median(checkpoint.heapSamples);
    const growth = heap(last) - heap(first);
    const noise = Math.max(...checkpoints.map((checkpoint) => spread(checkpoint.heapSamples)));
    const later = checkpoints.filter((checkpoint) => checkpoint.runs >= last.runs / 2);
    const lateSlope = slope(
      later.map((checkpoint) => checkpoint.runs),
      later.map(heap),
    );
    const instancesGrew = Object.keys(last.instances).filter(
      (kind) => (last.instances[kind] ?? 0) > (first.instances[kind] ?? 0),
    );
    const resourcesGrew = Object.keys(last.resources).filter(
      (kind) => (last.resources[kind] ?? 0) > (first.resources[kind] ?? 0),
    );
    const met = growth <= noise && instancesGrew.length === 0 && resourcesGrew.length === 0;
    const describe = (record: Record<string, number>) =>
      Object.entries(record)
        .map(([kind, count]) => `${kind} ${count}`)
        .join(', ');
    const figures: Figure[] = [
      {
        label: `Heap growth, ${last.runs} runs vs ${first.runs} (median of ${first.heapSamples.length} samples after full GC)`,
        value: growth,
        unit: 'bytes',
        note: `${kib(heap(first))} → ${kib(heap(last))}; ${(growth / (last.runs - first.runs)).toFixed(0)} bytes per run`,
      },
      {
        label: 'Noise: largest spread of repeated heap samples at one checkpoint',
        value: noise,
        unit: 'bytes',
      },
      {
        label: `Heap slope over the second half (runs ${later[0]?.runs}–${last.runs})`,
        value: lateSlope,
        unit: 'bytes/run',
      },
      {
        label: 'Heap at each checkpoint',
        value: checkpoints
          .map((checkpoint) => `${checkpoint.runs}: ${kib(heap(checkpoint))}`)
          .join(', '),
        unit: '',
      },
      {
        label: `Live instances after ${first.runs} runs`,
        value: describe(first.instances),
        unit: '',
      },
      {
        label: `Live instances after ${last.runs} runs`,
        value: describe(last.instances),
        unit: '',
      },
      {
        label: `Active handles after ${first.runs} / ${last.runs} runs`,
        value: `${describe(first.resources)} / ${describe(last.resources)}`,
        unit: '',
      },
      { label: 'For scale only: time for all runs', value: ms, unit: 'ms' },
    ];
    const notes: string[] = [];
    if (instancesGrew.length > 0)
      notes.push(`More live instances at the end: ${instancesGrew.join(', ')}.`);
    if (resourcesGrew.length > 0)
      notes.push(`More active handles at the end: ${resourcesGrew.join(', ')}.`);
    if (growth > noise) {
      notes.push(
        `The heap grew by ${kib(growth)} between ${first.runs} and ${last.runs} runs, more than the ` +
          `sampling noise (${kib(noise)}); over the second half the slope is ${lateSlope.toFixed(0)} bytes per run.`,
      );
    }
    return {
      verdict: met ? 'met' : 'missed',
      headline:
        `heap ${growth >= 0 ? '+' : ''}${kib(growth)} after ${last.runs} vs ${first.runs} runs (noise ${kib(noise)}); ` +
        `live signals/streams/sessions/timers/channels: ${instancesGrew.length === 0 ? 'no growth' : `grew: ${instancesGrew.join(', ')}`}`,
      figures,
      method:
        'A child process (`node --expose-gc`, client only; the servers run in their own process) ' +
        'runs an `Agent` with one `mcpServer` (demo server, 2026-07-28 endpoint, tools filtered to ' +
        '`read_file`, `get_weather`) and `openaiChatModel` on the scripted model server: each run ' +
        'calls `read_file` once and answers, on a new thread that is deleted afterwards (stored ' +
        `history is kept by design, so it is excluded). At ${checkpoints.map((checkpoint) => checkpoint.runs).join(', ')} ` +
        'runs: heap used after three full GCs, sampled 5 times; live instances counted with the ' +
        "inspector's `Runtime.queryObjects`; active handles from `process.getActiveResourcesInfo()`. " +
        'Met when the heap grew no more than the sampling noise and no count grew.',
      notes,
    };
  },
};
