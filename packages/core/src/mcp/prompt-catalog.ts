import type { Prompt } from '@modelcontextprotocol/client';
import { listAllPages } from './list-all-pages.ts';
import { mapCallToolResult } from './map-call-tool-result.ts';
import type {
  McpCompletion,
  McpCompletionReference,
  McpPrompt,
  McpPromptResult,
} from './resource-types.ts';
import type { ResourceOperationOptions } from './resource-catalog.ts';
import { requestOptions, type ServerFeatureHost } from './server-feature-host.ts';

/**
 * The prompts of one MCP server and argument completion (a collaborator of `McpServer`):
 * `prompts/list` (every page, our guard), `prompts/get` and `completion/complete` (for prompt
 * arguments and resource template variables), with the SDK v2 client's `getPrompt` and
 * `complete`.
 */
export class PromptCatalog {
  readonly #host: ServerFeatureHost;

  constructor(host: ServerFeatureHost) {
    this.#host = host;
  }

  /** Every prompt (all pages). A server without the `prompts` capability has none (no request). */
  async list(options: ResourceOperationOptions = {}): Promise<McpPrompt[]> {
    const { signal } = options;
    const prompts = await this.#host.use(
      options.runContext,
      async (client) => {
        if (client.getServerCapabilities()?.prompts === undefined) return [];
        const pages = await listAllPages(
          (cursor) =>
            client.request(
              { method: 'prompts/list', params: cursor === undefined ? {} : { cursor } },
              requestOptions(this.#host, signal),
            ),
          {
            method: 'prompts/list',
            noun: 'prompts',
            where: this.#host.where,
            scrub: (text) => this.#host.scrub(text),
          },
        );
        return pages.flatMap((page) => page.prompts);
      },
      signal,
    );
    return prompts.map((prompt) => this.#describe(prompt));
  }

  /**
   * Gets one prompt with its arguments filled in (`prompts/get`): each message's text, and its
   * other content as parts. Server text is scrubbed of the secrets this client sent.
   */
  async get(
    name: string,
    args: Record<string, string> = {},
    options: ResourceOperationOptions = {},
  ): Promise<McpPromptResult> {
    const { signal } = options;
    const result = await this.#host.use(
      options.runContext,
      (client) => client.getPrompt({ name, arguments: args }, requestOptions(this.#host, signal)),
      signal,
    );
    const prompt: McpPromptResult = {
      messages: result.messages.map((message) => {
        const mapped = mapCallToolResult({
          content: [message.content as unknown as Record<string, unknown>],
        });
        return {
          role: message.role,
          text: this.#host.scrub(mapped.text),
          ...(mapped.parts === undefined ? {} : { parts: mapped.parts }),
        };
      }),
    };
    if (result.description !== undefined) prompt.description = this.#host.scrub(result.description);
    return prompt;
  }

  /**
   * Suggestions for one argument (`completion/complete`). A server without the `completions`
   * capability suggests nothing (no request).
   *
   * @param context The values of the other arguments filled in so far.
   */
  async complete(
    ref: McpCompletionReference,
    argument: { name: string; value: string },
    options: ResourceOperationOptions & { context?: Record<string, string> } = {},
  ): Promise<McpCompletion> {
    const { signal, context } = options;
    return await this.#host.use(
      options.runContext,
      async (client) => {
        if (client.getServerCapabilities()?.completions === undefined) return { values: [] };
        const result = await client.complete(
          { ref, argument, ...(context === undefined ? {} : { context: { arguments: context } }) },
          requestOptions(this.#host, signal),
        );
        const completion: McpCompletion = {
          values: result.completion.values.map((value) => this.#host.scrub(value)),
        };
        if (result.completion.total !== undefined) completion.total = result.completion.total;
        if (result.completion.hasMore !== undefined) completion.hasMore = result.completion.hasMore;
        return completion;
      },
      signal,
    );
  }

  #describe(prompt: Prompt): McpPrompt {
    const scrub = (text: string): string => this.#host.scrub(text);
    const described: McpPrompt = {
      name: prompt.name,
      arguments: (prompt.arguments ?? []).map((argument) => {
        // `title` is on every BaseMetadata since 2025-06-18; the SDK's argument type lacks it.
        const { title } = argument as { title?: unknown };
        return {
          name: argument.name,
          required: argument.required === true,
          ...(typeof title === 'string' ? { title: scrub(title) } : {}),
          ...(argument.description === undefined
            ? {}
            : { description: scrub(argument.description) }),
        };
      }),
    };
    if (prompt.title !== undefined) described.title = scrub(prompt.title);
    if (prompt.description !== undefined) described.description = scrub(prompt.description);
    return described;
  }
}
