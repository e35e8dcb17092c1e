import type OpenAI from 'openai';
import type { ResponseStreamEvent, ResponseUsage } from 'openai/resources/responses/responses';
import { SwitchboardError } from '../errors/switchboard-error.ts';
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
import { toResponsesInput } from './to-responses-input.ts';
import { readAttachmentData } from '../model/attachment-content.ts';
import { OPENAI_RESPONSES_ATTACHMENT_LIMITS } from '../model/provider-attachment-limits.ts';

/** Options of {@link openaiResponsesModel}. */
export interface OpenAIResponsesModelOptions extends ModelTimeouts {
  /** Model name, e.g. `gpt-5-mini`. */
  model: string;
  /** API key. For local servers that speak the Responses API, any non-empty string. */
  apiKey?: string;
  /** Base URL of a Responses API, e.g. `http://127.0.0.1:8000/v1`. Default OpenAI's. */
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
  /**
   * Extra request body fields, e.g. `{ reasoning: { effort: 'low', summary: 'auto' } }` (needed
   * for OpenAI to stream reasoning summaries) or `{ store: false }`.
   */
  requestOptions?: Record<string, unknown>;
  /**
   * Sends each tool with `strict: true` when its schema can be made strict (see
   * `toStrictSchema`), so the model's arguments always match it; a tool whose schema cannot is
   * sent with `strict: false` and reported once through `onWarning`. Default false: every tool is
   * sent with `strict: false` (the Responses API would otherwise default to strict).
   */
  strict?: boolean;
  /** Receives warnings (a tool sent non-strict despite `strict`). Default `console.warn`. */
  onWarning?: (message: string) => void;
}

/**
 * A {@link Model} on the OpenAI Responses API (`client.responses.create({ stream: true })`)
 * through the official `openai` SDK. The whole history is sent as `input` items on every call
 * (no `previous_response_id`), the instructions as `instructions`.
 *
 * Streams text (`response.output_text.delta`; refusals as text too), reasoning
 * (`response.reasoning_summary_text.delta` and `response.reasoning_text.delta`, summary parts
 * separated by a blank line) and tool calls (`function_call` output items, arguments joined from
 * `response.function_call_arguments.delta`; emitted once the response completed, raw even when
 * not valid JSON). Usage comes from `response.completed` (or `response.incomplete`), normalised
 * to `{ inputTokens, outputTokens, cachedInputTokens, reasoningTokens }`.
 *
 * Failures throw a `SwitchboardError`: `aborted` when the signal aborts; `model_error` with
 * `details.status` for HTTP errors (401 bad key, 429, 5xx; with `details.retryAfterMs` and
 * `details.overloaded` for a retry policy); `model_error`
 * for an `error` or `response.failed` event, and when the stream ends before
 * `response.completed` (a cut connection is never a partial success); `timeout` when the server
 * goes quiet for `idleTimeoutMs` (before the headers or between events) or the call outlasts
 * `requestTimeoutMs`.
 *
 * @throws SwitchboardError `invalid_input` when a timeout option is not a positive number.
 *
 * In a browser the key is visible to the page's user: use it with the user's own key or a local
 * server only (`dangerouslyAllowBrowser` is set for that reason).
 */
export function openaiResponsesModel(options: OpenAIResponsesModelOptions): Model {
  resolveModelTimeouts(options);
  const client = createOpenAIClient(options);
  const schemas = new OpenAIToolSchemas(options);
  return {
    provider: 'openai-responses',
    modelId: options.model,
    attachmentLimits: OPENAI_RESPONSES_ATTACHMENT_LIMITS,
    stream: (request, { signal }) => streamResponses(client, options, schemas, request, signal),
  };
}

interface PendingCall {
  callId: string;
  name: string;
  arguments: string;
}

async function* streamResponses(
  client: OpenAI,
  options: OpenAIResponsesModelOptions,
  schemas: OpenAIToolSchemas,
  request: ModelRequest,
  signal: AbortSignal,
): AsyncIterable<ModelEvent> {
  const calls = new Map<number, PendingCall>();
  let usage: Usage | undefined;
  let finished = false;
  let streamOpened = false;
  // Read before the request's clocks start: a store read is not the provider's wait.
  const attachments = await readAttachmentData(request, signal);
  const clock = new ModelRequestClock(signal, options);
  try {
    const stream = yield* clock.responseStart(hostOf(client.baseURL), () =>
      client.responses.create(
        {
          ...options.requestOptions,
          model: options.model,
          input: toResponsesInput(request.items, attachments),
          ...(request.instructions === undefined || request.instructions === ''
            ? {}
            : { instructions: request.instructions }),
          ...(request.tools.length === 0
            ? {}
            : {
                tools: schemas.convert(request.tools).map((tool) => ({
                  type: 'function' as const,
                  name: tool.name,
                  description: tool.description,
                  parameters: tool.parameters,
                  strict: tool.strict,
                })),
              }),
          stream: true,
        },
        { signal: clock.signal, timeout: sdkTimeoutMs(options) },
      ),
    );
    streamOpened = true;
    clock.touch();
    for await (const event of stream as AsyncIterable<ResponseStreamEvent>) {
      clock.touch();
      switch (event.type) {
        case 'response.output_text.delta':
        case 'response.refusal.delta':
          if (event.delta !== '') yield { type: 'text.delta', delta: event.delta };
          break;
        case 'response.reasoning_summary_part.added':
          if (event.summary_index > 0) yield { type: 'reasoning.delta', delta: '\n\n' };
          break;
        case 'response.reasoning_summary_text.delta':
        case 'response.reasoning_text.delta':
          if (event.delta !== '') yield { type: 'reasoning.delta', delta: event.delta };
          break;
        case 'response.output_item.added':
        case 'response.output_item.done':
          if (event.item.type === 'function_call') {
            const known = calls.get(event.output_index);
            calls.set(event.output_index, {
              callId: event.item.call_id,
              name: event.item.name,
              arguments:
                event.type === 'response.output_item.done' || known === undefined
                  ? event.item.arguments
                  : known.arguments,
            });
          }
          break;
        case 'response.function_call_arguments.delta': {
          const call = calls.get(event.output_index);
          if (call !== undefined) call.arguments += event.delta;
          break;
        }
        case 'response.function_call_arguments.done': {
          const call = calls.get(event.output_index);
          if (call !== undefined) call.arguments = event.arguments;
          break;
        }
        case 'response.completed':
        case 'response.incomplete':
          if (event.response.usage) usage = toUsage(event.response.usage);
          finished = true;
          break;
        case 'response.failed': {
          const message = event.response.error?.message ?? 'no reason given';
          throw new SwitchboardError(
            'model_error',
            `The model provider reported a failed response: ${message}.`,
            { details: streamErrorFacts(event.response.error?.code, message) },
          );
        }
        case 'error':
          throw new SwitchboardError(
            'model_error',
            `The model provider reported an error: ${event.message}.`,
            { details: streamErrorFacts(event.code, event.message) },
          );
        default:
          break;
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
      callId: call.callId || `call_${index}_${crypto.randomUUID().slice(0, 8)}`,
      name: call.name,
      arguments: schemas.restoreArguments(request.tools, call.name, call.arguments),
    };
  }
  yield usage === undefined ? { type: 'done' } : { type: 'done', usage };
}

function toUsage(usage: ResponseUsage): Usage {
  const normalised: Usage = {
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
  };
  const cached = usage.input_tokens_details?.cached_tokens;
  if (typeof cached === 'number') normalised.cachedInputTokens = cached;
  const reasoning = usage.output_tokens_details?.reasoning_tokens;
  if (typeof reasoning === 'number') normalised.reasoningTokens = reasoning;
  return normalised;
}

/**
 * The retry facts of an error the Responses stream reported (see `ModelRetryPolicy`): a server
 * error or a rate limit mid-stream is transient; an overload is said in its message; anything
 * else (an invalid prompt, a refused image) is the request's fault and is not.
 */
function streamErrorFacts(
  code: string | null | undefined,
  message: string,
): { transient?: boolean; overloaded?: boolean } {
  const overloaded = /\boverloaded\b|\bunavailable\b/i.test(message);
  const transient = overloaded || code === 'server_error' || code === 'rate_limit_exceeded';
  return { ...(transient ? { transient } : {}), ...(overloaded ? { overloaded } : {}) };
}
