import type OpenAI from 'openai';
import type { Usage } from '../vocabulary/items.ts';
import type { Model, ModelEvent, ModelRequest } from '../model/model.ts';
import {
  ModelRequestClock,
  resolveModelTimeouts,
  sdkTimeoutMs,
  type ModelTimeouts,
} from '../model/model-request-clock.ts';
import { hostOf } from '../internal/offline.ts';
import { incompleteStreamError, toModelError } from '../model/to-model-error.ts';
import { createOpenAIClient } from './create-openai-client.ts';
import { openaiFailure } from './openai-failure.ts';
import { OpenAIToolSchemas } from './openai-tool-schemas.ts';
import { readChatCompletionChunks } from './read-chat-completion-chunks.ts';
import { toChatMessages } from './to-chat-messages.ts';
import { readAttachmentData } from '../model/attachment-content.ts';
import { OPENAI_CHAT_ATTACHMENT_LIMITS } from '../model/provider-attachment-limits.ts';

/** Options of {@link openaiChatModel}. */
export interface OpenAIChatModelOptions extends ModelTimeouts {
  /** Model name, e.g. `gpt-4.1-mini`, or whatever the OpenAI-compatible server serves. */
  model: string;
  /** API key. For local servers (Ollama, LM Studio) any non-empty string. */
  apiKey?: string;
  /** OpenAI-compatible base URL, e.g. `http://127.0.0.1:11434/v1`. Default OpenAI's. */
  baseURL?: string;
  /** A ready client instead of `apiKey` / `baseURL` / `maxRetries`. */
  client?: OpenAI;
  /**
   * Retries the SDK itself makes, unseen, on 408 / 409 / 429 / 5xx and connection errors.
   * Default 0: an `Agent` retries model calls by its `modelRetry` policy, which reports each
   * retry as a `model.retry` chunk and can fall back to other models. Set it only when using the
   * model outside an `Agent`.
   */
  maxRetries?: number;
  /** Extra request body fields (e.g. `temperature`). */
  requestOptions?: Record<string, unknown>;
  /**
   * Sends each tool with `strict: true` when its schema can be made strict (see
   * `toStrictSchema`), so the model's arguments always match it; a tool whose schema cannot is
   * sent non-strict and reported once through `onWarning`. Default false: every tool non-strict.
   */
  strict?: boolean;
  /** Receives warnings (a tool sent non-strict despite `strict`). Default `console.warn`. */
  onWarning?: (message: string) => void;
}

/**
 * A {@link Model} on the OpenAI Chat Completions API through the official `openai` SDK, for
 * OpenAI and any OpenAI-compatible endpoint (Ollama, vLLM, LM Studio, OpenRouter). Streams text,
 * `reasoning_content` where the server sends it, and tool calls (fragments joined per index,
 * emitted once the answer is complete; arguments that are not valid JSON are passed on raw).
 *
 * Failures throw a `SwitchboardError`: `aborted` when the signal aborts; `model_error` with
 * `details.status` for HTTP errors (401 bad key, 429, 5xx; with `details.retryAfterMs` and
 * `details.overloaded` for a retry policy); `model_error`
 * when the stream ends before a chunk with a `finish_reason` (a cut connection is never a partial
 * success); `timeout` when the server goes quiet for `idleTimeoutMs` (before the headers or
 * between chunks) or the call outlasts `requestTimeoutMs`.
 *
 * @throws SwitchboardError `invalid_input` when a timeout option is not a positive number.
 *
 * In a browser the key is visible to the page's user: use it with the user's own key or a local
 * server only (`dangerouslyAllowBrowser` is set for that reason).
 */
export function openaiChatModel(options: OpenAIChatModelOptions): Model {
  resolveModelTimeouts(options);
  const client = createOpenAIClient(options);
  const schemas = new OpenAIToolSchemas(options);
  return {
    provider: 'openai-chat',
    modelId: options.model,
    attachmentLimits: OPENAI_CHAT_ATTACHMENT_LIMITS,
    stream: (request, { signal }) => streamChat(client, options, schemas, request, signal),
  };
}

async function* streamChat(
  client: OpenAI,
  options: OpenAIChatModelOptions,
  schemas: OpenAIToolSchemas,
  request: ModelRequest,
  signal: AbortSignal,
): AsyncIterable<ModelEvent> {
  const calls = new Map<number, { id: string; name: string; arguments: string }>();
  let usage: Usage | undefined;
  let finished = false;
  let streamOpened = false;
  // Read before the request's clocks start: a store read is not the provider's wait.
  const attachments = await readAttachmentData(request, signal);
  const clock = new ModelRequestClock(signal, options);
  try {
    const response = yield* clock.responseStart(hostOf(client.baseURL), () =>
      client.chat.completions
        .create(
          {
            ...options.requestOptions,
            model: options.model,
            messages: toChatMessages(request.instructions, request.items, attachments),
            ...(request.tools.length === 0
              ? {}
              : {
                  tools: schemas.convert(request.tools).map((tool) => ({
                    type: 'function' as const,
                    function: {
                      name: tool.name,
                      description: tool.description,
                      parameters: tool.parameters,
                      ...(tool.strict ? { strict: true } : {}),
                    },
                  })),
                }),
            stream: true,
            stream_options: { include_usage: true },
          },
          { signal: clock.signal, timeout: sdkTimeoutMs(options) },
        )
        // The raw response: its body is read by `readChatCompletionChunks`, not the SDK's `Stream`.
        .asResponse(),
    );
    streamOpened = true;
    clock.touch();
    const touch = () => clock.touch();
    for await (const chunks of readChatCompletionChunks(response, clock.signal, touch)) {
      for (const chunk of chunks) {
        if (chunk.usage) usage = toUsage(chunk.usage);
        const choice = chunk.choices[0];
        if (choice?.finish_reason) finished = true;
        const delta = choice?.delta as
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
    }
  } catch (error) {
    throw clock.expired ?? toModelError(error, signal, openaiFailure(error, streamOpened));
  } finally {
    clock.dispose();
  }
  // The SDK ends the iteration quietly when its request is aborted.
  if (clock.expired !== undefined) throw clock.expired;
  if (signal.aborted) throw toModelError(signal.reason, signal, openaiFailure(undefined, true));
  if (!finished) throw incompleteStreamError();
  for (const [index, call] of [...calls].sort(([a], [b]) => a - b)) {
    yield {
      type: 'tool.call',
      callId: call.id || `call_${index}_${crypto.randomUUID().slice(0, 8)}`,
      name: call.name,
      arguments: schemas.restoreArguments(request.tools, call.name, call.arguments),
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
