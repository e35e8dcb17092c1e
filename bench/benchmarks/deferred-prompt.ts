import { readFile } from 'node:fs/promises';
import { Agent, ToolSearchIndex, mcpServer } from '@switchboard/core';
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
const TARGET_RECALL = 0.9;
const K = 5;
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

/** A labelled query of `bench/fixtures/tool-search-queries.json` (benchmark 5's fixture). */
interface LabelledQuery {
  query: string;
  expected: string[];
  category: string;
}

/**
 * recall@5 of `tool_search`'s index per query category, over the tools the demo server lists
 * (the documents the agent's toolset indexes: name, annotation title, description).
 */
async function recallByCategory(
  url: string,
): Promise<Map<string, { recall: number; count: number }>> {
  const fixture = JSON.parse(
    await readFile(new URL('../fixtures/tool-search-queries.json', import.meta.url), 'utf8'),
  ) as { queries: LabelledQuery[] };
  const server = mcpServer({ url, name: 'demo', deferredTools: '*' });
  try {
    const listed = await server.listTools();
    const index = new ToolSearchIndex(
      listed.map((tool) => ({
        name: tool.name,
        ...(tool.annotations?.title === undefined ? {} : { title: tool.annotations.title }),
        description: tool.description,
      })),
    );
    const sums = new Map<string, { recall: number; count: number }>();
    for (const query of fixture.queries) {
      const top = index.search(query.query, K).map((hit) => hit.name);
      const recall =
        query.expected.filter((name) => top.includes(name)).length / query.expected.length;
      const sum = sums.get(query.category) ?? { recall: 0, count: 0 };
      sums.set(query.category, { recall: sum.recall + recall, count: sum.count + 1 });
    }
    const target = ['filler', 'named'].map(
      (category) => sums.get(category) ?? { recall: 0, count: 0 },
    );
    sums.set('target (filler + named)', {
      recall: target.reduce((total, entry) => total + entry.recall, 0),
      count: target.reduce((total, entry) => total + entry.count, 0),
    });
    return new Map(
      [...sums].map(([category, sum]) => [
        category,
        { recall: sum.count === 0 ? 0 : sum.recall / sum.count, count: sum.count },
      ]),
    );
  } finally {
    await server.close();
  }
}

export const deferredPromptBenchmark: Benchmark = {
  id: 4,
  key: 'deferred-prompt',
  title: 'Prompt size with 1,000 deferred tools, and `tool_search` recall',
  baseline: 'same tools not deferred',
  target: 'whole prompt (tool schemas + instructions) ≤ 2%; recall@5 ≥ 0.9',
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
      log('recall@5 of the tool_search index on the labelled queries');
      const recalls = await recallByCategory(servers.modernUrl);
      const targetRecall = recalls.get('target (filler + named)')?.recall ?? 0;
      const paraphraseRecall = recalls.get('paraphrase')?.recall;
      const rewordedRecall = recalls.get('reworded')?.recall;
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
          label: 'Deferred-tools instructions section',
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
        ...[...recalls].map(([category, { recall, count }]): Figure => ({
          label: `\`tool_search\` recall@${K}, ${category} queries${
            category === 'paraphrase'
              ? ' (synonyms only, no shared word; not in the target)'
              : category === 'reworded'
                ? ' (the same words in other forms; not in the target)'
                : ''
          }`,
          value: recall,
          unit: '',
          note: `${count} queries`,
        })),
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
      if (promptRatio > TARGET_RATIO) {
        notes.push(
          `The deferred-tools instructions section is ${(section / 1024).toFixed(1)} KiB ` +
            `(${((section / eager.tools) * 100).toFixed(1)}% of the eager tool schemas): the prompt ` +
            `as a whole shrinks only to ${(promptRatio * 100).toFixed(1)}%.`,
        );
      }
      notes.push(
        'The instructions section is bounded (count per source, how to call `tool_search`, up to ' +
          '40 description keywords, the first 20 tools, "… and K more"); ' +
          '`deferredToolsInstructions: false` removes it. Synonym-only paraphrases share no word ' +
          'with any description, so the lexical index cannot find them; the keywords line is there ' +
          "so that a model can restate a request in the tools' own words.",
      );
      return {
        verdict: promptRatio <= TARGET_RATIO && targetRecall >= TARGET_RECALL ? 'met' : 'missed',
        headline:
          `prompt ${(promptRatio * 100).toFixed(2)}% (tools ${(toolRatio * 100).toFixed(2)}% + instructions section ` +
          `${section.toLocaleString('en-US')} B); recall@${K} ${targetRecall.toFixed(3)}, ` +
          `reworded ${rewordedRecall?.toFixed(2) ?? '—'}, paraphrases ${paraphraseRecall?.toFixed(2) ?? '—'}`,
        figures,
        method:
          `An \`Agent\` with one \`mcpServer\` on the demo server (${servers.toolCount + 8} tools) and ` +
          '`openaiChatModel` against the scripted model server (in-process); `deferredTools: "*"` vs none. ' +
          'Bytes are UTF-8 JSON of what the server recorded for the first model request ' +
          `(\`server.requests[i].body.tools\`, the system message). ${TRIALS} interleaved pairs; the counts are exact. ` +
          `Recall: \`ToolSearchIndex\` over the listed tools, top ${K}, every query of ` +
          '`bench/fixtures/tool-search-queries.json` (target = filler + named; benchmark 5 runs the same ' +
          'queries through agent runs).',
        notes,
      };
    } finally {
      await modelServer.close();
    }
  },
};
