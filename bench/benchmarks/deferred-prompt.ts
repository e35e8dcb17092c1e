import { Agent, mcpServer } from '@switchboard/core';
import { openaiChatModel } from '@switchboard/core/openai';
import {
  scriptFromReplies,
  startScriptedModelServer,
  type ScriptedModelServer,
} from '@switchboard/fixtures';
import type { Benchmark } from '../benchmark.ts';
import type { Figure } from '../report.ts';
import { interleave, summarize } from '../stats.ts';

const TRIALS = 3;
const TARGET_RATIO = 0.02;
const INSTRUCTIONS = 'You are the benchmark agent. Answer briefly.';

interface PromptBytes {
  /** UTF-8 bytes of the request's `tools` array as sent (JSON). */
  tools: number;
  /** Tool definitions sent. */
  toolCount: number;
  /** UTF-8 bytes of the system message's content. */
  system: number;
  /** UTF-8 bytes of the whole request body. */
  body: number;
}

const bytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value ?? []), 'utf8');

/** Runs one agent turn and measures the first model request the scripted server recorded. */
async function measure(
  modelServer: ScriptedModelServer,
  url: string,
  deferred: boolean,
): Promise<PromptBytes> {
  const server = mcpServer({ url, name: 'demo', ...(deferred ? { deferredTools: '*' } : {}) });
  const agent = new Agent({
    name: 'bench',
    instructions: INSTRUCTIONS,
    model: openaiChatModel({ model: 'scripted', baseURL: `${modelServer.url}/v1`, maxRetries: 0 }),
    mcpServers: [server],
  });
  try {
    const first = modelServer.requests.length;
    const result = await agent.execute({ messages: 'Hello' }).result();
    if (result.status !== 'completed') throw new Error(`run ${result.status}`);
    const request = modelServer.requests[first];
    if (request === undefined) throw new Error('the model server recorded no request');
    const system = request.messages.find((message) => message.role === 'system');
    return {
      tools: bytes(request.body['tools']),
      toolCount: request.tools?.length ?? 0,
      system: system === undefined ? 0 : Buffer.byteLength(String(system.content), 'utf8'),
      body: bytes(request.body),
    };
  } finally {
    await server.close();
  }
}

export const deferredPromptBenchmark: Benchmark = {
  id: 4,
  key: 'deferred-prompt',
  title: 'Prompt size with 1,000 deferred tools',
  baseline: 'same tools not deferred',
  target: 'tool-schema bytes ≤ 2%',
  async run({ servers, log }) {
    const modelServer = await startScriptedModelServer({
      script: scriptFromReplies([{ text: 'OK.' }]),
    });
    try {
      log(`${TRIALS} interleaved pairs`);
      const { a, b } = await interleave(
        TRIALS,
        () => measure(modelServer, servers.modernUrl, true),
        () => measure(modelServer, servers.modernUrl, false),
      );
      const deferred = a[0] as PromptBytes;
      const eager = b[0] as PromptBytes;
      const stable = [...a, ...b].every(
        (sample, index) =>
          JSON.stringify(sample) === JSON.stringify(index < a.length ? deferred : eager),
      );
      const baseInstructions = Buffer.byteLength(INSTRUCTIONS, 'utf8');
      const section = deferred.system - eager.system;
      const toolRatio = deferred.tools / eager.tools;
      const promptRatio = (deferred.tools + deferred.system) / (eager.tools + eager.system);
      const figures: Figure[] = [
        {
          label: 'Tool-schema bytes, deferred / not deferred',
          value: toolRatio * 100,
          unit: '%',
          note: `${deferred.tools.toLocaleString('en-US')} vs ${eager.tools.toLocaleString('en-US')} bytes`,
        },
        { label: 'Tools sent, deferred', value: deferred.toolCount, unit: 'count' },
        { label: 'Tools sent, not deferred', value: eager.toolCount, unit: 'count' },
        {
          label: 'Deferred-tools instructions section (reported separately)',
          value: section,
          unit: 'bytes',
          note: `system message ${deferred.system.toLocaleString('en-US')} bytes vs ${eager.system.toLocaleString('en-US')} (instructions alone: ${baseInstructions})`,
        },
        {
          label: 'Tool schemas + system message, deferred / not deferred',
          value: promptRatio * 100,
          unit: '%',
        },
        {
          label: 'Whole request body, deferred / not deferred',
          value: (deferred.body / eager.body) * 100,
          unit: '%',
          note: `${deferred.body.toLocaleString('en-US')} vs ${eager.body.toLocaleString('en-US')} bytes`,
        },
        {
          label: 'Tool-schema bytes deferred / not deferred, over the trials',
          value: summarize(
            a.map((sample, index) => (sample.tools / (b[index] as PromptBytes).tools) * 100),
          ),
          unit: '%',
        },
      ];
      const notes: string[] = [];
      if (!stable) notes.push('The byte counts differed between trials (they should not).');
      if (section > eager.tools * TARGET_RATIO) {
        notes.push(
          `The instructions section that names every deferred tool is ${(section / 1024).toFixed(0)} KiB ` +
            `(${((section / eager.tools) * 100).toFixed(1)}% of the eager tool schemas): the tool ` +
            'schemas shrink as targeted, but the prompt as a whole shrinks only to ' +
            `${(promptRatio * 100).toFixed(1)}%. \`deferredToolsInstructions: false\` removes the section.`,
        );
      }
      return {
        verdict: toolRatio <= TARGET_RATIO ? 'met' : 'missed',
        headline:
          `tools ${(toolRatio * 100).toFixed(2)}% (${deferred.tools.toLocaleString('en-US')} / ${eager.tools.toLocaleString('en-US')} B); ` +
          `+ instructions section ${section.toLocaleString('en-US')} B → prompt ${(promptRatio * 100).toFixed(1)}%`,
        figures,
        method:
          `An \`Agent\` with one \`mcpServer\` on the demo server (${servers.toolCount + 8} tools) and ` +
          '`openaiChatModel` against the scripted model server (in-process); `deferredTools: "*"` vs none. ' +
          'Bytes are UTF-8 JSON of what the server recorded for the first model request ' +
          `(\`server.requests[i].body.tools\`, the system message). ${TRIALS} interleaved pairs; the counts are exact.`,
        notes,
      };
    } finally {
      await modelServer.close();
    }
  },
};
