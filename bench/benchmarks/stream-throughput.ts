import { performance } from 'node:perf_hooks';
import OpenAI from 'openai';
import { Agent } from '@switchboard/core';
import { openaiChatModel } from '@switchboard/core/openai';
import type { Benchmark } from '../benchmark.ts';
import { interleave, pairedRatios, summarize } from '../stats.ts';

const WORDS = 20_000;
const TRIALS = 10;
const TARGET_RATIO = 0.95;

interface StreamTrial {
  deltas: number;
  characters: number;
  /** From the request to the end of the stream, in ms. */
  ms: number;
}

const deltasPerSecond = (trial: StreamTrial) => trial.deltas / (trial.ms / 1000);

/** Switchboard: an agent run on `openaiChatModel`, consuming `text.delta` chunks of `run.chunks`. */
async function viaChunks(agent: Agent): Promise<StreamTrial> {
  const start = performance.now();
  const run = agent.execute({ messages: 'Stream the text.' });
  let deltas = 0;
  let characters = 0;
  for await (const chunk of run.chunks) {
    if (chunk.type === 'text.delta') {
      deltas += 1;
      characters += chunk.delta.length;
    }
  }
  const ms = performance.now() - start;
  const result = await run.result();
  if (result.status !== 'completed') throw new Error(`run ${result.status}`);
  return { deltas, characters, ms };
}

/** Baseline: the `openai` SDK's own stream, consumed directly. */
async function viaSdk(client: OpenAI, model: string): Promise<StreamTrial> {
  const start = performance.now();
  const stream = await client.chat.completions.create({
    model,
    messages: [{ role: 'user', content: 'Stream the text.' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let deltas = 0;
  let characters = 0;
  for await (const chunk of stream) {
    const content = chunk.choices[0]?.delta.content;
    if (typeof content === 'string' && content !== '') {
      deltas += 1;
      characters += content.length;
    }
  }
  return { deltas, characters, ms: performance.now() - start };
}

export const streamThroughputBenchmark: Benchmark = {
  id: 6,
  key: 'stream-throughput',
  title: 'Text deltas per second, scripted provider stream → `chunks`',
  baseline: 'the `openai` SDK stream consumed directly',
  target: `ratio ≥ ${TARGET_RATIO}`,
  async run({ servers, log }) {
    const model = `text:${WORDS}`;
    const baseURL = `${servers.modelUrl}/v1`;
    const client = new OpenAI({ apiKey: 'bench', baseURL, maxRetries: 0 });
    const agent = new Agent({
      name: 'bench',
      model: openaiChatModel({ model, client }),
    });
    log('warm-up one stream per side');
    await viaChunks(agent);
    await viaSdk(client, model);
    log(`${TRIALS} interleaved pairs of ${WORDS} deltas`);
    const { a, b } = await interleave(
      TRIALS,
      () => viaChunks(agent),
      () => viaSdk(client, model),
    );
    const ratio = summarize(pairedRatios(a.map(deltasPerSecond), b.map(deltasPerSecond)));
    const counts = new Set([...a, ...b].map((trial) => `${trial.deltas}/${trial.characters}`));
    const notes: string[] = [];
    if (counts.size !== 1)
      notes.push(`Delta/character counts differed: ${[...counts].join(', ')}.`);
    return {
      verdict: ratio.median >= TARGET_RATIO ? 'met' : 'missed',
      headline: `×${ratio.median.toFixed(3)} (p25–p75 ${ratio.p25.toFixed(3)}–${ratio.p75.toFixed(3)}, min–max ${ratio.min.toFixed(3)}–${ratio.max.toFixed(3)})`,
      figures: [
        {
          label: 'Deltas per second, Switchboard `chunks` / SDK stream',
          value: ratio,
          unit: 'ratio',
        },
        {
          label: 'Deltas / characters per stream (both sides)',
          value: [...counts].join(', '),
          unit: '',
        },
        {
          label: 'For scale only: Switchboard',
          value: summarize(a.map(deltasPerSecond)),
          unit: 'deltas/s',
        },
        {
          label: 'For scale only: SDK',
          value: summarize(b.map(deltasPerSecond)),
          unit: 'deltas/s',
        },
      ],
      method:
        `The scripted model server (separate process) streams a ${WORDS.toLocaleString('en-US')}-word answer as ` +
        `Chat Completions SSE, one word per delta, no delay. Switchboard: \`agent.execute()\` with ` +
        '`openaiChatModel` (same `OpenAI` client instance), counting `text.delta` chunks of ' +
        '`run.chunks` (history in the default memory store); baseline: ' +
        '`client.chat.completions.create({ stream: true })`, counting non-empty `delta.content`. ' +
        `Timed from the request to the end of the stream. One warm-up each, then ${TRIALS} interleaved pairs.`,
      notes,
    };
  },
};
