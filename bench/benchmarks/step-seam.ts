import { performance } from 'node:perf_hooks';
import { Agent, tool, type StepRunner } from '@switchboard/core';
import { mockModel, textTurn, toolCallTurn } from '@switchboard/core/testing';
import { z } from 'zod';
import type { Benchmark } from '../benchmark.ts';
import type { Figure } from '../report.ts';
import { interleave, median, pairedRatios, summarize } from '../stats.ts';

/**
 * Interleaved block pairs (ABBA…), runs per block, warm-up runs per side. 60 pairs, not 30: the
 * per-pair ratios spread over p25–p75 0.93–1.15 on a shared 2-core machine, and with 30 the
 * median moved by ±3% between full runs of the same code (about 20 s in all).
 */
const BLOCKS = 60;
const RUNS_PER_BLOCK = 150;
const WARMUP_RUNS = 300;
const TARGET_OVERHEAD = 0.05;

/**
 * The seam's full path: a runner that is not `inProcessSteps`, so every step goes through
 * `StepRunner.run` and `runStep`'s bookkeeping (the replay flag, the model step's record).
 */
const seamPath: StepRunner = { run: (_name, step) => step() };

const getTime = tool({
  name: 'get_time',
  description: 'The time.',
  input: z.object({}),
  execute: () => 'noon',
});

/** One run: a tool call, then an answer (two model steps and a tool step), memory history. */
async function oneRun(steps: StepRunner | undefined): Promise<number> {
  const model = mockModel([toolCallTurn('get_time', {}), textTurn('It is noon.')]);
  const agent = new Agent({ name: 'seam', model, tools: [getTime] });
  const start = performance.now();
  const result = await agent
    .execute({ messages: 'time?', ...(steps === undefined ? {} : { steps }) })
    .result();
  const elapsed = performance.now() - start;
  if (result.status !== 'completed')
    throw new Error(`run ${result.status}: ${result.error?.message}`);
  return elapsed;
}

async function block(steps: StepRunner | undefined, runs: number): Promise<number[]> {
  const times: number[] = [];
  for (let index = 0; index < runs; index += 1) times.push(await oneRun(steps));
  return times;
}

/**
 * The step seam in the in-process loop (issue 16, "no slower"). The loop before the seam
 * cannot run beside today's, so the default runner is compared with the seam's full path: the
 * default (`inProcessSteps`) is short-circuited by `runStep` to a direct call of the step — the
 * loop as it was, plus one identity check — while a pass-through runner takes every step
 * through the seam. The full path's cost is an upper bound of what the seam adds to the default.
 */
export const stepSeamBenchmark: Benchmark = {
  id: 13,
  key: 'step-seam',
  title: 'Step seam: in-process run time, default runner vs the seam’s full path',
  baseline: 'the default `inProcessSteps` (a direct call of each step, as before the seam)',
  target: 'the seam’s full path costs ≤ 5% per run (so the default, which skips it, is no slower)',
  async run({ log }) {
    log(`warm-up ${WARMUP_RUNS} runs per side`);
    await block(undefined, WARMUP_RUNS);
    await block(seamPath, WARMUP_RUNS);
    log(`${BLOCKS} interleaved blocks × ${RUNS_PER_BLOCK} runs per side`);
    const blocks = await interleave(
      BLOCKS,
      () => block(seamPath, RUNS_PER_BLOCK),
      () => block(undefined, RUNS_PER_BLOCK),
    );
    const ratios = summarize(pairedRatios(blocks.a.map(median), blocks.b.map(median)));
    const overhead = ratios.median - 1;
    const figures: Figure[] = [
      {
        label: 'Run time ratio seam path / default (per-block median run time)',
        value: ratios,
        unit: 'ratio',
        note: `overhead ${(overhead * 100).toFixed(1)}%`,
      },
      { label: 'Runs measured per side', value: BLOCKS * RUNS_PER_BLOCK, unit: 'count' },
      {
        label: 'For scale only: default runner, per-block median run time',
        value: summarize(blocks.b.map(median)),
        unit: 'ms',
      },
      {
        label: 'For scale only: seam path, per-block median run time',
        value: summarize(blocks.a.map(median)),
        unit: 'ms',
      },
    ];
    return {
      verdict: overhead <= TARGET_OVERHEAD ? 'met' : 'missed',
      headline: `seam path ×${ratios.median.toFixed(3)} (p25–p75 ${ratios.p25.toFixed(3)}–${ratios.p75.toFixed(3)}, n=${ratios.count} block pairs)`,
      figures,
      method:
        `An \`Agent\` on \`mockModel\` (a \`get_time\` call, then an answer: two model steps and a ` +
        `tool step), memory history, a new agent per run. ${WARMUP_RUNS} warm-up runs per side, ` +
        `then ${BLOCKS} blocks of ${RUNS_PER_BLOCK} runs per side, interleaved ABBA; ratio = the ` +
        `seam block's median run time / the paired default block's. Default: \`execute\` without ` +
        '`steps` (`inProcessSteps`); seam path: `steps: { run: (name, step) => step() }`.',
      notes: [
        'The loop as it was before the seam cannot run beside today’s code, so the default is the ' +
          'baseline: `runStep` calls the step directly for `inProcessSteps`. The seam path bounds ' +
          'what the seam could add; the default pays one identity check per step on top of the old loop.',
      ],
    };
  },
};
