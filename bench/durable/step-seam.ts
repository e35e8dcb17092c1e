/**
 * The cost of the step seam in the in-process loop (docs/scale.md, "Measured"): the same runs
 * (a tool call, then an answer; `mockModel`, a local tool, memory history) with the default
 * `inProcessSteps` and with a pass-through runner that takes the seam's full path (each step
 * through `StepRunner.run`, the model step's record built and checked). Interleaved blocks;
 * not part of `npm run bench`:
 *
 *   node --conditions=@switchboard/source --import tsx bench/durable/step-seam.ts
 */
import { performance } from 'node:perf_hooks';
import { Agent, tool, type StepRunner } from '@switchboard/core';
import { mockModel, textTurn, toolCallTurn } from '@switchboard/core/testing';
import { z } from 'zod';

const BLOCKS = 10;
const RUNS_PER_BLOCK = 300;

const passThrough: StepRunner = { run: (_name, step) => step() };
const getTime = tool({
  name: 'get_time',
  description: 'The time.',
  input: z.object({}),
  execute: () => 'noon',
});

async function block(steps: StepRunner | undefined): Promise<number> {
  const start = performance.now();
  for (let index = 0; index < RUNS_PER_BLOCK; index += 1) {
    const model = mockModel([toolCallTurn('get_time', {}), textTurn('It is noon.')]);
    const agent = new Agent({ name: 'seam', model, tools: [getTime] });
    const result = await agent
      .execute({ messages: 'time?', ...(steps === undefined ? {} : { steps }) })
      .result();
    if (result.status !== 'completed') throw new Error(result.error?.message);
  }
  return (performance.now() - start) / RUNS_PER_BLOCK;
}

await block(undefined);
await block(passThrough);
const inProcess: number[] = [];
const seam: number[] = [];
for (let index = 0; index < BLOCKS; index += 1) {
  inProcess.push(await block(undefined));
  seam.push(await block(passThrough));
}
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
console.log(
  JSON.stringify(
    {
      msPerRun: { inProcessSteps: median(inProcess), passThroughRunner: median(seam) },
      ratio: median(seam) / median(inProcess),
    },
    null,
    2,
  ),
);
