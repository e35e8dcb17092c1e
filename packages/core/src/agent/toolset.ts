import { z } from 'zod/v4';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import type { ModelToolDefinition } from '../model/model.ts';
import { tool } from '../tools/tool.ts';
import { ToolSearchIndex } from '../tools/tool-search-index.ts';
import type { Tool } from '../tools/tool-types.ts';

/** The name of the meta-tool that finds deferred tools. */
export const TOOL_SEARCH_NAME = 'tool_search';
const DEFAULT_MAX_RESULTS = 5;

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

  constructor(tools: readonly Tool[], activated: Iterable<string>) {
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
    this.activated = new Set([...activated].filter((name) => this.#tools.has(name)));
    if (this.#deferred.length > 0 && !this.#tools.has(TOOL_SEARCH_NAME)) {
      this.#tools.set(TOOL_SEARCH_NAME, this.#searchTool());
    }
  }

  /** Any tool by its provider-facing name, deferred or not. */
  get(name: string): Tool | undefined {
    return this.#tools.get(name);
  }

  /** What the model is offered now: non-deferred tools, activated ones and `tool_search`. */
  modelTools(): ModelToolDefinition[] {
    return [...this.#tools.values()]
      .filter((candidate) => candidate.deferred !== true || this.activated.has(candidate.name))
      .map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
  }

  /** A short instructions section naming the deferred tools, or undefined when there are none. */
  instructionsSection(): string | undefined {
    const waiting = this.#deferred.filter((candidate) => !this.activated.has(candidate.name));
    if (waiting.length === 0) return undefined;
    const lines = waiting.map((candidate) => {
      const summary = (candidate.description.split('\n')[0] ?? '').trim();
      return summary === '' ? `- ${candidate.name}` : `- ${candidate.name}: ${summary}`;
    });
    return [
      `More tools are available but not loaded. Call ${TOOL_SEARCH_NAME} with keywords, or with`,
      '"select:name1,name2" for exact names, to load them before use:',
      ...lines,
    ].join('\n');
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

function describeSource(candidate: Tool): string {
  return candidate.server === undefined ? 'a local tool' : `MCP server "${candidate.server}"`;
}
