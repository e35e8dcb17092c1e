import Anthropic, { APIConnectionError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import type {
  MessageDeltaUsage,
  RawMessageStreamEvent,
  Usage as AnthropicUsage,
} from '@anthropic-ai/sdk/resources/messages/messages';
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
import type { ProviderFailure } from '../model/to-model-error.ts';
import { retryAfterMs } from '../model/retry-after.ts';
import { toAnthropicMessages } from './to-anthropic-messages.ts';
import { readAttachmentData } from '../model/attachment-content.ts';
import { ANTHROPIC_ATTACHMENT_LIMITS } from '../model/provider-attachment-limits.ts';

/** Options of {@link anthropicModel}. */
export interface AnthropicModelOptions extends ModelTimeouts {
  /** Model name, e.g. `claude-sonnet-4-5`. */
  model: string;
  /** API key. Default: the SDK's own lookup (`ANTHROPIC_API_KEY` where an environment exists). */
  apiKey?: string;
  /** Base URL without `/v1`, e.g. a proxy. Default Anthropic's. */
  baseURL?: string;
  /** A ready client instead of `apiKey` / `baseURL` / `maxRetries`. */
  client?: Anthropic;
  /**
   * Retries the SDK itself makes, unseen, on 408 / 409 / 429 / 5xx and connection errors.
   * Default 0: an `Agent` retries model calls by its `modelRetry` policy, which reports each
   * retry as a `model.retry` chunk and can fall back to other models. Set it only when using the
   * model outside an `Agent`.
   */
  maxRetries?: number;
  /** `max_tokens` of every call: the most output tokens one answer may use. Default 4096. */
  maxTokens?: number;
  /**
   * Extra request body fields, e.g. `{ temperature: 0 }` or
   * `{ thinking: { type: 'enabled', budget_tokens: 2048 } }` (then `maxTokens` must exceed it).
   */
  requestOptions?: Record<string, unknown>;
}

/**
 * A {@link Model} on the Anthropic Messages API through the official `@anthropic-ai/sdk`
 * (`client.messages.create({ stream: true })`); history is converted by `toAnthropicMessages`
 * and tools are sent as `{ name, description, input_schema }` (Anthropic has no strict mode).
 *
 * Streams `text_delta` as `text.delta`, `thinking_delta` as `reasoning.delta`, and tool calls
 * (`tool_use` blocks, input JSON joined from `input_json_delta` fragments, `{}` when empty, raw
 * when not valid JSON), emitted after `message_stop`. Usage is normalised to
 * `{ inputTokens: input_tokens + cache_read_input_tokens + cache_creation_input_tokens,
 * outputTokens, cachedInputTokens: cache_read_input_tokens, reasoningTokens: thinking_tokens }`
 * (optional counters only when reported).
 *
 * Failures throw a `SwitchboardError`: `aborted` when the signal aborts; `model_error` with
 * `details.status` for HTTP errors (401 bad key, 429, 5xx, 529 overloaded; with
 * `details.retryAfterMs` and `details.overloaded` for a retry policy); `model_error` for an `error` event mid-stream and when the stream ends before
 * `message_stop` (a cut connection is never a partial success); `timeout` when the server goes
 * quiet for `idleTimeoutMs` (before the headers or between events; Anthropic's `ping` events
 * count as signs of life) or the call outlasts `requestTimeoutMs`.
 *
 * @throws SwitchboardError `invalid_input` when a timeout option is not a positive number.
 *
 * The client is created with `dangerouslyAllowBrowser: true` because Switchboard runs agents in
 * the page: the SDK then sends the `anthropic-dangerous-direct-browser-access` header that lets
 * Anthropic's API answer browser requests (CORS). The key is then visible to the page's user, so
 * use the user's own key, or a `baseURL` proxy that adds the key server-side.
 */
export function anthropicModel(options: AnthropicModelOptions): Model {
  resolveModelTimeouts(options);
  const client =
    options.client ??
    new Anthropic({
      ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
      ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
      maxRetries: options.maxRetries ?? 0,
      dangerouslyAllowBrowser: true,
    });
  return {
    provider: 'anthropic',
    modelId: options.model,
    attachmentLimits: ANTHROPIC_ATTACHMENT_LIMITS,
    stream: (request, { signal }) => streamMessages(client, options, request, signal),
  };
}

interface PendingCall {
  callId: string;
  name: string;
  input: string;
}

async function* streamMessages(
  client: Anthropic,
  options: AnthropicModelOptions,
  request: ModelRequest,
  signal: AbortSignal,
): AsyncIterable<ModelEvent> {
  const calls = new Map<number, PendingCall>();
  const counters: UsageCounters = {};
  let finished = false;
  let streamOpened = false;
  // Read before the request's clocks start: a store read is not the provider's wait.
  const attachments = await readAttachmentData(request, signal);
  const clock = new ModelRequestClock(signal, options);
  try {
    const { system, messages } = toAnthropicMessages(
      request.instructions,
      request.items,
      attachments,
    );
    const stream = yield* clock.responseStart(hostOf(client.baseURL), () =>
      client.messages.create(
        {
          ...options.requestOptions,
          model: options.model,
          max_tokens: options.maxTokens ?? 4096,
          ...(system === undefined ? {} : { system }),
          messages,
          ...(request.tools.length === 0
            ? {}
            : {
                tools: request.tools.map((tool) => ({
                  name: tool.name,
                  description: tool.description,
                  input_schema: tool.inputSchema as Anthropic.Messages.Tool.InputSchema,
                })),
              }),
          stream: true,
        },
        { signal: clock.signal, timeout: sdkTimeoutMs(options) },
      ),
    );
    streamOpened = true;
    clock.touch();
    for await (const event of stream as AsyncIterable<RawMessageStreamEvent>) {
      clock.touch();
      switch (event.type) {
        case 'message_start':
          recordUsage(counters, event.message.usage);
          break;
        case 'content_block_start':
          if (event.content_block.type === 'tool_use') {
            calls.set(event.index, {
              callId: event.content_block.id,
              name: event.content_block.name,
              input: '',
            });
          }
          break;
        case 'content_block_delta':
          if (event.delta.type === 'text_delta' && event.delta.text !== '') {
            yield { type: 'text.delta', delta: event.delta.text };
          } else if (event.delta.type === 'thinking_delta' && event.delta.thinking !== '') {
            yield { type: 'reasoning.delta', delta: event.delta.thinking };
          } else if (event.delta.type === 'input_json_delta') {
            const call = calls.get(event.index);
            if (call !== undefined) call.input += event.delta.partial_json;
          }
          break;
        case 'message_delta':
          recordUsage(counters, event.usage);
          break;
        case 'message_stop':
          finished = true;
          break;
        default:
          break;
      }
    }
  } catch (error) {
    throw clock.expired ?? toModelError(error, signal, anthropicFailure(error, streamOpened));
  } finally {
    clock.dispose();
  }
  // The SDK ends the iteration quietly when its request is aborted.
  if (clock.expired !== undefined) throw clock.expired;
  if (signal.aborted) throw toModelError(signal.reason, signal, anthropicFailure(undefined, true));
  if (!finished) throw incompleteStreamError();
  for (const [, call] of [...calls].sort(([a], [b]) => a - b)) {
    yield {
      type: 'tool.call',
      callId: call.callId,
      name: call.name,
      arguments: call.input === '' ? '{}' : call.input,
    };
  }
  const usage = toUsage(counters);
  yield usage === undefined ? { type: 'done' } : { type: 'done', usage };
}

/** Anthropic's raw usage counters, as last reported (null / absent ones never overwrite). */
interface UsageCounters {
  input?: number;
  cacheRead?: number;
  cacheCreation?: number;
  output?: number;
  thinking?: number;
}

/**
 * Folds one usage report into the counters: `message_start` carries the input counts,
 * `message_delta` the cumulative output count (and, on newer API versions, input counts again),
 * so a counter in a later report replaces the earlier one.
 */
function recordUsage(
  counters: UsageCounters,
  report: Partial<AnthropicUsage> | Partial<MessageDeltaUsage> | null | undefined,
): void {
  if (report === null || report === undefined) return;
  const set = (key: keyof UsageCounters, value: number | null | undefined): void => {
    if (typeof value === 'number') counters[key] = value;
  };
  set('input', report.input_tokens);
  set('cacheRead', report.cache_read_input_tokens);
  set('cacheCreation', report.cache_creation_input_tokens);
  set('output', report.output_tokens);
  set('thinking', report.output_tokens_details?.thinking_tokens);
}

function toUsage(counters: UsageCounters): Usage | undefined {
  if (counters.input === undefined && counters.output === undefined) return undefined;
  const usage: Usage = {
    inputTokens: (counters.input ?? 0) + (counters.cacheRead ?? 0) + (counters.cacheCreation ?? 0),
    outputTokens: counters.output ?? 0,
  };
  if (counters.cacheRead !== undefined) usage.cachedInputTokens = counters.cacheRead;
  if (counters.thinking !== undefined) usage.reasoningTokens = counters.thinking;
  return usage;
}

/**
 * What an `@anthropic-ai/sdk` error says, for `toModelError`: a user abort, an HTTP status with
 * the message of Anthropic's `{ type: 'error', error: { type, message } }` body, an `error` event
 * mid-stream (an `APIError` without status), or a transport failure.
 */
function anthropicFailure(error: unknown, streamOpened: boolean): ProviderFailure {
  if (error instanceof APIUserAbortError) {
    return { aborted: true, fromProvider: false, streamOpened };
  }
  if (error instanceof APIError && !(error instanceof APIConnectionError)) {
    const body: unknown = error.error;
    const detail =
      typeof body === 'object' && body !== null && 'error' in body ? body.error : undefined;
    const bodyMessage =
      typeof detail === 'object' &&
      detail !== null &&
      'message' in detail &&
      typeof detail.message === 'string'
        ? detail.message
        : undefined;
    const detailType =
      typeof detail === 'object' && detail !== null && 'type' in detail ? detail.type : undefined;
    return {
      aborted: false,
      status: error.status,
      providerMessage: bodyMessage ?? error.message.replace(/^\d{3}\s+/, ''),
      fromProvider: true,
      streamOpened,
      retryAfterMs: retryAfterMs(error.headers),
      // Anthropic says so with HTTP 529, or with an `error` event mid-stream (no status).
      overloaded: detailType === 'overloaded_error',
    };
  }
  return { aborted: false, fromProvider: false, streamOpened };
}
