import * as z from 'zod/v4';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import type { ModelToolDefinition } from '../model/model.ts';
import { tool } from '../tools/tool.ts';
import { toolError } from '../tools/tool-errors.ts';
import { ToolSearchIndex, tokenize } from '../tools/tool-search-index.ts';
import type { Tool } from '../tools/tool-types.ts';
import type { ToolOutput } from '../vocabulary/items.ts';

/** The name of the meta-tool that finds deferred tools. */
export const TOOL_SEARCH_NAME = 'tool_search';
const DEFAULT_MAX_RESULTS = 5;
/** Deferred tools the instructions section names, at most; the rest are counted. */
export const DEFERRED_LISTED_TOOLS = 20;
/** Sources (MCP servers, "local") the section names, at most. */
const LISTED_SOURCES = 8;
/** Description words the section suggests as search keywords, at most. */
const LISTED_KEYWORDS = 40;
/** Longest first description line the section quotes, in characters. */
const SUMMARY_CHARS = 100;
/** Longest source name the section quotes, in characters. */
const SOURCE_CHARS = 40;

/**
 * The tools of one run: every tool by name, which ones the model sees, and `tool_search`
 * (added when any tool is deferred). Deferred tools stay out of the model's list until a
 * search finds them; found tools stay active for the rest of the thread (`activated`, the union
 * of every search, stored in the run state).
 */
export class Toolset {
  readonly activated: Set<string>;
  readonly #tools = new Map<string, Tool>();
  readonly #deferred: Tool[];
  /** Tools an MCP server removed during the run: name → server. */
  readonly #removed: ReadonlyMap<string, string>;
  #keywords: string[] | undefined;

  /**
   * @param removed Tools an MCP server listed earlier in this run and no longer lists, by name,
   *   with that server's name (see `RunToolset`): a call of one gets {@link removedToolOutput}.
   */
  constructor(
    tools: readonly Tool[],
    activated: Iterable<string>,
    removed: ReadonlyMap<string, string> = new Map(),
  ) {
    for (const candidate of tools) {
      const other = this.#tools.get(candidate.name);
      if (other !== undefined) {
        throw new SwitchboardError(
          'invalid_input',
          `Two tools are named "${candidate.name}" (${describeSource(other)} and ${describeSource(candidate)}); ` +
            'give one MCP server a toolPrefix or rename the local tool.',
        );
      }
      this.#tools.set(candidate.name, candidate);
    }
    this.#deferred = tools.filter((candidate) => candidate.deferred === true);
    this.#removed = removed;
    this.activated = new Set([...activated].filter((name) => this.#tools.has(name)));
    if (this.#deferred.length > 0 && !this.#tools.has(TOOL_SEARCH_NAME)) {
      this.#tools.set(TOOL_SEARCH_NAME, this.#searchTool());
    }
  }

  /** Any tool by its provider-facing name, deferred or not. */
  get(name: string): Tool | undefined {
    return this.#tools.get(name);
  }

  /** The server that removed the tool `name` during this run; undefined unless it did. */
  removedBy(name: string): string | undefined {
    return this.#tools.has(name) ? undefined : this.#removed.get(name);
  }

  /** What the model is offered now: non-deferred tools, activated ones and `tool_search`. */
  modelTools(): ModelToolDefinition[] {
    return [...this.#tools.values()]
      .filter((candidate) => candidate.deferred !== true || this.activated.has(candidate.name))
      .map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
  }

  /**
   * A bounded instructions section about the deferred tools not loaded yet, or undefined when
   * there are none: how many wait and where they come from, how to load them with
   * `tool_search`, the words their descriptions use most, and the first
   * {@link DEFERRED_LISTED_TOOLS} by name and first description line ("… and K more"). Its size
   * does not grow with the number of deferred tools (see {@link deferredToolsSection}).
   */
  instructionsSection(): string | undefined {
    const waiting = this.#deferred.filter((candidate) => !this.activated.has(candidate.name));
    // The keywords describe the whole deferred catalog; computed once, not on every model call.
    this.#keywords ??= descriptionKeywords(this.#deferred);
    return deferredToolsSection(waiting, this.#keywords);
  }

  #searchTool(): Tool {
    const index = new ToolSearchIndex(
      this.#deferred.map((candidate) => ({
        name: candidate.name,
        ...(candidate.annotations?.title === undefined
          ? {}
          : { title: candidate.annotations.title }),
        description: candidate.description,
      })),
    );
    return tool({
      name: TOOL_SEARCH_NAME,
      description:
        'Find and load deferred tools. Use keywords describing the task, or "select:a,b" to load tools by exact name. ' +
        'Loaded tools stay available for the rest of the conversation.',
      input: z.object({
        query: z.string().describe('Keywords, or "select:name1,name2" for exact tool names.'),
        max_results: z
          .number()
          .int()
          .min(1)
          .max(50)
          .optional()
          .describe(`How many tools to return; default ${DEFAULT_MAX_RESULTS}.`),
      }),
      execute: ({ query, max_results }) => {
        const found = query.trim().startsWith('select:')
          ? this.#select(query.trim().slice('select:'.length))
          : index.search(query, max_results ?? DEFAULT_MAX_RESULTS).map((hit) => hit.name);
        for (const name of found) this.activated.add(name);
        if (found.length === 0) return `No deferred tools matched "${query}".`;
        return [
          `Loaded ${found.length} tool(s); they can be called now:`,
          ...found.map(
            (name) => `- ${name}: ${this.#tools.get(name)?.description.split('\n')[0] ?? ''}`,
          ),
        ].join('\n');
      },
    });
  }

  #select(list: string): string[] {
    const names = list
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '');
    return names.filter((name) => this.#deferred.some((candidate) => candidate.name === name));
  }
}

/**
 * The output of a call of a tool its MCP server removed during the run (its `tools/list` changed
 * after the model was offered it): `tool_not_found`, naming the removal, so the model stops
 * calling it rather than retrying a typo.
 */
export function removedToolOutput(name: string, server: string): ToolOutput {
  return toolError(
    'tool_not_found',
    `The tool "${name}" is no longer available: MCP server "${server}" removed it during this ` +
      'run (its tool list changed). Do not call it again.',
  );
}

function describeSource(candidate: Tool): string {
  return candidate.server === undefined ? 'a local tool' : `MCP server "${candidate.server}"`;
}

function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1).trimEnd()}…`;
}

const count = (value: number): string => value.toLocaleString('en-US');

/**
 * The instructions section for `waiting` deferred tools (undefined when there are none). Bounded
 * whatever their number: at most {@link DEFERRED_LISTED_TOOLS} tools listed (first description
 * line clipped to 100 characters), {@link LISTED_SOURCES} sources and {@link LISTED_KEYWORDS}
 * keywords ({@link descriptionKeywords}; computed from `waiting` unless given), so a model can phrase its `tool_search` in the tools' own words.
 */
export function deferredToolsSection(
  waiting: readonly Tool[],
  keywords: readonly string[] = descriptionKeywords(waiting),
): string | undefined {
  if (waiting.length === 0) return undefined;
  const lines = [
    `${count(waiting.length)} more tool(s) are available but not loaded (${sources(waiting)}).`,
    `Call ${TOOL_SEARCH_NAME} with keywords describing the task, or with "select:name1,name2" for`,
    'exact names, to load them before use.',
  ];
  if (keywords.length > 0) lines.push(`Words their descriptions use: ${keywords.join(', ')}.`);
  const listed = waiting.slice(0, DEFERRED_LISTED_TOOLS);
  if (listed.length < waiting.length) lines.push(`The first ${listed.length}:`);
  for (const candidate of listed) {
    const summary = clip((candidate.description.split('\n')[0] ?? '').trim(), SUMMARY_CHARS);
    lines.push(summary === '' ? `- ${candidate.name}` : `- ${candidate.name}: ${summary}`);
  }
  if (listed.length < waiting.length) {
    lines.push(`… and ${count(waiting.length - listed.length)} more: use ${TOOL_SEARCH_NAME}.`);
  }
  return lines.join('\n');
}

/** "MCP server "a": 12, local: 3", the largest sources first, at most {@link LISTED_SOURCES}. */
function sources(waiting: readonly Tool[]): string {
  const counts = new Map<string, number>();
  for (const candidate of waiting) {
    const source =
      candidate.server === undefined
        ? 'local'
        : `MCP server "${clip(candidate.server, SOURCE_CHARS)}"`;
    counts.set(source, (counts.get(source) ?? 0) + 1);
  }
  const sorted = [...counts].sort((a, b) => b[1] - a[1]);
  const named = sorted.slice(0, LISTED_SOURCES).map(([source, n]) => `${source}: ${count(n)}`);
  const others = sorted.length - LISTED_SOURCES;
  return others > 0 ? `${named.join(', ')} and ${others} more source(s)` : named.join(', ');
}

/**
 * Words that tell deferred tools apart: in at least two descriptions but at most half of them
 * (words every tool shares do not narrow a search), most frequent first, each in the form it
 * is most often written; at most {@link LISTED_KEYWORDS}, 24 characters each at most.
 */
export function descriptionKeywords(waiting: readonly Tool[]): string[] {
  if (waiting.length < 4) return [];
  const stems = new Map<string, { tools: number; forms: Map<string, number> }>();
  const stemOf = new Map<string, string | undefined>();
  for (const candidate of waiting) {
    const seen = new Set<string>();
    for (const word of candidate.description.toLowerCase().match(/[a-z][a-z0-9]*/g) ?? []) {
      if (word.length > 24) continue;
      if (!stemOf.has(word)) stemOf.set(word, tokenize(word)[0]);
      const stem = stemOf.get(word);
      if (stem === undefined) continue;
      const entry = stems.get(stem) ?? { tools: 0, forms: new Map<string, number>() };
      stems.set(stem, entry);
      entry.forms.set(word, (entry.forms.get(word) ?? 0) + 1);
      if (!seen.has(stem)) {
        seen.add(stem);
        entry.tools += 1;
      }
    }
  }
  return [...stems.values()]
    .filter((entry) => entry.tools >= 2 && entry.tools <= waiting.length / 2)
    .sort((a, b) => b.tools - a.tools)
    .slice(0, LISTED_KEYWORDS)
    .map((entry) => [...entry.forms].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '');
}
