import { readFile } from 'node:fs/promises';
import { Agent, TOOL_SEARCH_NAME, ToolSearchIndex, mcpServer } from '@switchboard/core';
import { openaiChatModel } from '@switchboard/core/openai';
import { startScriptedModelServer, type ModelScript } from '@switchboard/fixtures';
import type { Benchmark } from '../benchmark.ts';
import type { Figure } from '../report.ts';
import { mean, quantile } from '../stats.ts';

const K = 5;
const TARGET_RECALL = 0.9;
const BOOTSTRAP_RESAMPLES = 2000;

interface LabelledQuery {
  query: string;
  expected: string[];
  category: string;
}

interface Fixture {
  toolCount: number;
  queries: LabelledQuery[];
}

interface Scored {
  query: LabelledQuery;
  found: string[];
  recall: number;
  /** 1 / rank of the first expected tool, 0 when none is in the list. */
  reciprocalRank: number;
}

/** The model calls `tool_search` with the user's words, then answers once it has the result. */
const searchScript: ModelScript = (request) => {
  const last = request.messages.at(-1);
  if (last?.role === 'tool') return { text: 'Found them.' };
  const user = request.messages.findLast((message) => message.role === 'user');
  const query = typeof user?.content === 'string' ? user.content : '';
  return { toolCalls: [{ name: TOOL_SEARCH_NAME, arguments: { query } }] };
};

function score(query: LabelledQuery, found: string[]): Scored {
  const top = found.slice(0, K);
  const hits = query.expected.filter((name) => top.includes(name)).length;
  const rank = top.findIndex((name) => query.expected.includes(name));
  return {
    query,
    found: top,
    recall: hits / query.expected.length,
    reciprocalRank: rank === -1 ? 0 : 1 / (rank + 1),
  };
}

/** A small seeded PRNG (mulberry32) so the bootstrap interval is the same every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

/** 95% percentile-bootstrap interval of the mean of `values` (resampling queries). */
function bootstrapInterval(values: readonly number[]): [number, number] {
  const next = random(0x5eed);
  const means: number[] = [];
  for (let resample = 0; resample < BOOTSTRAP_RESAMPLES; resample += 1) {
    let sum = 0;
    for (let draw = 0; draw < values.length; draw += 1) {
      sum += values[Math.floor(next() * values.length)] as number;
    }
    means.push(sum / values.length);
  }
  return [quantile(means, 0.025), quantile(means, 0.975)];
}

/** Tool names listed in a `tool_search` result ("- name: description" lines), in order. */
function namesFromResult(text: string): string[] {
  return text
    .split('\n')
    .map((line) => /^- ([A-Za-z0-9_-]+):/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined);
}

export const toolSearchBenchmark: Benchmark = {
  id: 5,
  key: 'tool-search',
  title: '`tool_search` quality, labelled queries over 1,000 deferred tools',
  baseline: '— (labels in `bench/fixtures/tool-search-queries.json`)',
  target: 'recall@5 ≥ 0.9',
  async run({ servers, log }) {
    const fixture = JSON.parse(
      await readFile(new URL('../fixtures/tool-search-queries.json', import.meta.url), 'utf8'),
    ) as Fixture;
    if (fixture.toolCount !== servers.toolCount) {
      throw new Error(`fixture is for ${fixture.toolCount} tools, server has ${servers.toolCount}`);
    }
    const modelServer = await startScriptedModelServer({ script: searchScript });
    const server = mcpServer({ url: servers.modernUrl, name: 'demo', deferredTools: '*' });
    try {
      const listed = await server.listTools();
      const names = new Set(listed.map((tool) => tool.name));
      const unknown = fixture.queries.flatMap((query) =>
        query.expected.filter((name) => !names.has(name)),
      );
      if (unknown.length > 0) throw new Error(`labels name unknown tools: ${unknown.join(', ')}`);

      const agent = new Agent({
        name: 'bench',
        model: openaiChatModel({
          model: 'scripted',
          baseURL: `${modelServer.url}/v1`,
          maxRetries: 0,
        }),
        mcpServers: [server],
      });
      // The same documents the agent's toolset indexes (name, annotation title, description).
      const index = new ToolSearchIndex(
        listed.map((tool) => ({
          name: tool.name,
          ...(tool.annotations?.title === undefined ? {} : { title: tool.annotations.title }),
          description: tool.description,
        })),
      );

      log(`${fixture.queries.length} queries through agent runs (tool_search) and the index`);
      const viaAgent: Scored[] = [];
      const viaIndex: Scored[] = [];
      for (const query of fixture.queries) {
        const run = agent.execute({ messages: query.query });
        let found: string[] | undefined;
        for await (const chunk of run.chunks) {
          if (chunk.type === 'tool.result' && chunk.toolName === TOOL_SEARCH_NAME) {
            found = namesFromResult(chunk.output.text);
          }
        }
        const result = await run.result();
        if (result.status !== 'completed' || found === undefined) {
          throw new Error(`the run for "${query.query}" ended ${result.status} without a search`);
        }
        viaAgent.push(score(query, found));
        viaIndex.push(
          score(
            query,
            index.search(query.query, K).map((hit) => hit.name),
          ),
        );
      }

      // The target is judged on the queries in the description's own words; paraphrases are
      // reported beside it (see the fixture's rule).
      const judged = viaAgent.filter((scored) =>
        ['filler', 'named'].includes(scored.query.category),
      );
      const recalls = judged.map((scored) => scored.recall);
      const recall = mean(recalls);
      const [low, high] = bootstrapInterval(recalls);
      const agreement = viaAgent.filter(
        (scored, position) =>
          JSON.stringify(scored.found) === JSON.stringify(viaIndex[position]?.found),
      ).length;
      const categories = [...new Set(fixture.queries.map((query) => query.category))];
      const figures: Figure[] = [
        {
          label: `recall@${K}, the ${judged.length} target queries (filler + named, through \`tool_search\` in agent runs)`,
          value: recall,
          unit: '',
          note: `95% bootstrap interval over queries ${low.toFixed(3)}–${high.toFixed(3)}`,
        },
        ...categories.map((category): Figure => {
          const scored = viaAgent.filter((entry) => entry.query.category === category);
          return {
            label: `recall@${K}, ${category} queries${category === 'paraphrase' ? ' (synonyms only; not part of the target)' : category === 'reworded' ? ' (same words in other forms; not part of the target)' : ''}`,
            value: mean(scored.map((entry) => entry.recall)),
            unit: '',
            note: `${scored.filter((entry) => entry.recall === 1).length} of ${scored.length} found`,
          };
        }),
        {
          label: 'hit@1 (expected tool ranked first), target queries',
          value: mean(judged.map((scored) => (scored.reciprocalRank === 1 ? 1 : 0))),
          unit: '',
        },
        {
          label: `MRR@${K}, target queries`,
          value: mean(judged.map((scored) => scored.reciprocalRank)),
          unit: '',
        },
        {
          label: '`ToolSearchIndex` directly: same top 5 as the agent path',
          value: `${agreement} of ${viaAgent.length} queries`,
          unit: '',
        },
      ];
      const misses = judged.filter((scored) => scored.recall < 1);
      const paraphrases = viaAgent.filter((scored) => scored.query.category === 'paraphrase');
      const notes = misses.map(
        (scored) =>
          `Missed: "${scored.query.query}" → expected ${scored.query.expected.join(', ')}, got ${scored.found.join(', ') || 'nothing'}.`,
      );
      if (paraphrases.length > 0) {
        notes.push(
          `Synonym-only paraphrases (e.g. "${paraphrases[0]?.query.query}" for ` +
            `${paraphrases[0]?.query.expected.join(', ')}): ${paraphrases.filter((scored) => scored.recall === 1).length} of ` +
            `${paraphrases.length} found. The index is lexical (BM25F with light stemming): a query ` +
            'that shares no word with the description finds nothing, so models must search with the ' +
            "tools' own vocabulary (the deferred-tools instructions section suggests their most common words).",
        );
      }
      return {
        verdict: recall >= TARGET_RECALL ? 'met' : 'missed',
        headline:
          `recall@${K} ${recall.toFixed(3)} (${judged.length - misses.length}/${judged.length}; 95% bootstrap ${low.toFixed(3)}–${high.toFixed(3)}); ` +
          `synonym-only paraphrases (not in the target): ${paraphrases.length === 0 ? 'none' : mean(paraphrases.map((scored) => scored.recall)).toFixed(2)}`,
        figures,
        method:
          `${fixture.queries.length} labelled queries (rule in \`bench/fixtures/build-tool-search-queries.ts\`), ` +
          `each one agent run on a new thread: \`mcpServer({ deferredTools: "*" })\` on the demo server ` +
          `(${listed.length} tools), a scripted model that calls \`tool_search\` with the query, and ` +
          `the names in the tool's result as the ranking (default max ${K}). Deterministic, so one ` +
          'pass; the spread is a 95% bootstrap interval over queries (2,000 resamples, fixed seed).',
        notes,
      };
    } finally {
      await server.close();
      await modelServer.close();
    }
  },
};
