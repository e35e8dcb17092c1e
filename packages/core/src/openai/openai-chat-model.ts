import OpenAI, { APIError, APIUserAbortError } from 'openai';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import type { Usage } from '../items.ts';
import type { Model, ModelEvent, ModelRequest } from '../model/model.ts';
import { toChatMessages } from './to-chat-messages.ts';

/** Options of {@link openaiChatModel}. */
export interface OpenAIChatModelOptions {
  /** Model name, e.g. `gpt-4.1-mini`, or whatever the OpenAI-compatible server serves. */
  model: string;
  /** API key. For local servers (Ollama, LM Studio) any non-empty string. */
  apiKey?: string;
  /** OpenAI-compatible base URL, e.g. `http://127.0.0.1:11434/v1`. Default OpenAI's. */
  baseURL?: string;
  /** A ready client instead of `apiKey` / `baseURL`. */
  client?: OpenAI;
  /** Retries the SDK makes on 429 / 5xx (honouring `retry-after`). Default 2. */
  maxRetries?: number;
  /** Extra request body fields (e.g. `temperature`). */
  requestOptions?: Record<string, unknown>;
}

/**
 * A {@link Model} on the OpenAI Chat Completions API through the official `openai` SDK, for
 * OpenAI and any OpenAI-compatible endpoint (Ollama, vLLM, LM Studio, OpenRouter). Streams text,
 * `reasoning_content` where the server sends it, and tool calls (fragments joined per index).
 *
 * In a browser the key is visible to the page's user: use it with the user's own key or a local
 * server only (`dangerouslyAllowBrowser` is set for that reason).
 */
export function openaiChatModel(options: OpenAIChatModelOptions): Model {
  const client =
    options.client ??
    new OpenAI({
      apiKey: options.apiKey ?? 'not-needed',
      ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
      maxRetries: options.maxRetries ?? 2,
      dangerouslyAllowBrowser: true,
    });
  return {
    provider: 'openai-chat',
    modelId: options.model,
    stream: (request, { signal }) => streamChat(client, options, request, signal),
  };
}

async function* streamChat(
  client: OpenAI,
  options: OpenAIChatModelOptions,
  request: ModelRequest,
  signal: AbortSignal,
): AsyncIterable<ModelEvent> {
  const calls = new Map<number, { id: string; name: string; arguments: string }>();
  let usage: Usage | undefined;
  try {
    const stream = await client.chat.completions.create(
      {
        ...options.requestOptions,
        model: options.model,
        messages: toChatMessages(request.instructions, request.items),
        ...(request.tools.length === 0
          ? {}
          : {
              tools: request.tools.map((tool) => ({
                type: 'function' as const,
                function: {
                  name: tool.name,
                  description: tool.description,
                  parameters: tool.inputSchema,
                },
              })),
            }),
        stream: true,
        stream_options: { include_usage: true },
      },
      { signal },
    );
    for await (const chunk of stream) {
      if (chunk.usage) usage = toUsage(chunk.usage);
      const delta = chunk.choices[0]?.delta as
        | (OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta & {
            reasoning_content?: string | null;
          })
        | undefined;
      if (delta === undefined) continue;
      if (typeof delta.reasoning_content === 'string' && delta.reasoning_content !== '') {
        yield { type: 'reasoning.delta', delta: delta.reasoning_content };
      }
      if (typeof delta.content === 'string' && delta.content !== '') {
        yield { type: 'text.delta', delta: delta.content };
      }
      for (const fragment of delta.tool_calls ?? []) {
        const call = calls.get(fragment.index) ?? { id: '', name: '', arguments: '' };
        if (fragment.id) call.id = fragment.id;
        if (fragment.function?.name) call.name += fragment.function.name;
        if (fragment.function?.arguments) call.arguments += fragment.function.arguments;
        calls.set(fragment.index, call);
      }
    }
  } catch (error) {
    throw toModelError(error, signal);
  }
  for (const [index, call] of [...calls].sort(([a], [b]) => a - b)) {
    yield {
      type: 'tool.call',
      callId: call.id || `call_${index}_${crypto.randomUUID().slice(0, 8)}`,
      name: call.name,
      arguments: call.arguments,
    };
  }
  yield usage === undefined ? { type: 'done' } : { type: 'done', usage };
}

function toUsage(usage: OpenAI.Completions.CompletionUsage): Usage {
  const normalised: Usage = {
    inputTokens: usage.prompt_tokens,
    outputTokens: usage.completion_tokens,
  };
  const cached = usage.prompt_tokens_details?.cached_tokens;
  if (typeof cached === 'number') normalised.cachedInputTokens = cached;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  if (typeof reasoning === 'number') normalised.reasoningTokens = reasoning;
  return normalised;
}

function toModelError(error: unknown, signal: AbortSignal): SwitchboardError {
  if (signal.aborted || error instanceof APIUserAbortError) {
    return new SwitchboardError('aborted', 'The model request was aborted.', { cause: error });
  }
  if (error instanceof APIError && error.status !== undefined) {
    return new SwitchboardError(
      'model_error',
      `The model provider answered HTTP ${error.status}: ${error.message}`,
      {
        cause: error,
        details: { status: error.status },
      },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new SwitchboardError('model_error', `The model request failed: ${message}`, {
    cause: error,
  });
}
