import type { ServerResponse } from 'node:http';
import type {
  ChatContentPart,
  ChatRequestMessage,
  ChatRequestToolCall,
  ChatTool,
  ScriptedReply,
} from '../model-script.ts';
import {
  EventStream,
  isJsonObject,
  resolveToolCalls,
  resolveUsage,
  sendAnswer,
  sendJson,
  shortId,
  splitArguments,
  splitWords,
} from './wire-support.ts';
import type {
  NormalisedRequest,
  ResolvedToolCall,
  ResolvedUsage,
  WireFormatHandler,
} from './wire-support.ts';

/**
 * A content block of an Anthropic request message (`text`, `image`, `thinking`, `tool_use`,
 * `tool_result`, …), loosely typed: branch on `type`.
 */
export interface AnthropicContentBlock {
  type: string;
  [field: string]: unknown;
}

/** One message of an Anthropic Messages request. */
export interface AnthropicRequestMessage {
  role: 'user' | 'assistant';
  content: string | AnthropicContentBlock[];
}

/** A tool offered in an Anthropic Messages request. */
export interface AnthropicTool {
  name: string;
  description?: string;
  /** JSON Schema of the tool input (an object schema). */
  input_schema?: Record<string, unknown>;
  type?: string;
}

/**
 * The parsed body of a `POST /v1/messages` request (Anthropic Messages API). Only the fields the
 * scripted server and tests care about are typed; anything else is still in the recorded `body`.
 */
export interface AnthropicMessagesRequest {
  model: string;
  /** Required by the API; the scripted server answers 400 without it, as Anthropic does. */
  max_tokens: number;
  system?: string | AnthropicContentBlock[];
  messages: AnthropicRequestMessage[];
  tools?: AnthropicTool[];
  /** `true` for a server-sent-events stream (`message_start` … `message_stop`). */
  stream?: boolean;
  thinking?: Record<string, unknown>;
}

/** The Anthropic error `type` for an HTTP status. */
function errorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit_error';
  if (status === 529) return 'overloaded_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

function textOf(blocks: unknown): string {
  if (typeof blocks === 'string') return blocks;
  if (!Array.isArray(blocks)) return '';
  return blocks
    .filter(isJsonObject)
    .map((block) =>
      block['type'] === 'text' && typeof block['text'] === 'string' ? block['text'] : '',
    )
    .join('');
}

function toParts(blocks: readonly Record<string, unknown>[]): ChatContentPart[] {
  return blocks.map((block): ChatContentPart => {
    const type = typeof block['type'] === 'string' ? block['type'] : 'unknown';
    return type === 'text' && typeof block['text'] === 'string'
      ? { type: 'text', text: block['text'] }
      : { type };
  });
}

function toolResultContent(content: unknown): string | ChatContentPart[] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return toParts(content.filter(isJsonObject));
}

function userMessages(content: unknown): ChatRequestMessage[] {
  if (typeof content === 'string') return [{ role: 'user', content }];
  if (!Array.isArray(content)) return [];
  const messages: ChatRequestMessage[] = [];
  let pending: Record<string, unknown>[] = [];
  const flush = (): void => {
    if (pending.length > 0) messages.push({ role: 'user', content: toParts(pending) });
    pending = [];
  };
  for (const block of content.filter(isJsonObject)) {
    if (block['type'] === 'tool_result') {
      flush();
      messages.push({
        role: 'tool',
        tool_call_id: String(block['tool_use_id'] ?? ''),
        content: toolResultContent(block['content']),
      });
    } else {
      pending.push(block);
    }
  }
  flush();
  return messages;
}

function assistantMessage(content: unknown): ChatRequestMessage {
  if (typeof content === 'string') return { role: 'assistant', content };
  const blocks = Array.isArray(content) ? content.filter(isJsonObject) : [];
  const toolCalls: ChatRequestToolCall[] = blocks
    .filter((block) => block['type'] === 'tool_use')
    .map((block) => ({
      id: String(block['id'] ?? ''),
      type: 'function',
      function: {
        name: String(block['name'] ?? ''),
        arguments: JSON.stringify(block['input'] ?? {}),
      },
    }));
  const text = textOf(blocks);
  const reasoning = blocks
    .map((block) =>
      block['type'] === 'thinking' && typeof block['thinking'] === 'string'
        ? block['thinking']
        : '',
    )
    .join('');
  const message: ChatRequestMessage = {
    role: 'assistant',
    content: text === '' && toolCalls.length > 0 ? null : text,
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (reasoning !== '') message.reasoning_content = reasoning;
  return message;
}

function toMessages(body: AnthropicMessagesRequest): ChatRequestMessage[] {
  const messages: ChatRequestMessage[] = [];
  const system = textOf(body.system);
  if (system !== '') messages.push({ role: 'system', content: system });
  for (const message of body.messages as unknown[]) {
    if (!isJsonObject(message)) continue;
    if (message['role'] === 'assistant') messages.push(assistantMessage(message['content']));
    else messages.push(...userMessages(message['content']));
  }
  return messages;
}

function toTools(tools: readonly unknown[]): ChatTool[] {
  return tools.filter(isJsonObject).flatMap((tool): ChatTool[] => {
    if (typeof tool['name'] !== 'string') return [];
    if (tool['type'] !== undefined && tool['type'] !== 'custom') return [];
    const converted: ChatTool = { type: 'function', function: { name: tool['name'] } };
    if (typeof tool['description'] === 'string') {
      converted.function.description = tool['description'];
    }
    if (isJsonObject(tool['input_schema'])) converted.function.parameters = tool['input_schema'];
    return [converted];
  });
}

function toWireUsage(usage: ResolvedUsage): Record<string, unknown> {
  const cached = usage.cachedTokens ?? 0;
  const wire: Record<string, unknown> = {
    input_tokens: Math.max(0, usage.promptTokens - cached),
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
    output_tokens: usage.completionTokens,
  };
  if (usage.reasoningTokens !== undefined) {
    wire['output_tokens_details'] = { thinking_tokens: usage.reasoningTokens };
  }
  return wire;
}

function parsedInput(call: ResolvedToolCall): unknown {
  try {
    const input: unknown = JSON.parse(call.arguments);
    return isJsonObject(input) ? input : {};
  } catch {
    return {};
  }
}

/** The content blocks of a reply, as a finished (non-streamed) message holds them. */
function contentBlocks(
  reply: ScriptedReply,
  toolCalls: readonly ResolvedToolCall[],
): Record<string, unknown>[] {
  const blocks: Record<string, unknown>[] = [];
  if (reply.reasoning !== undefined && reply.reasoning !== '') {
    blocks.push({ type: 'thinking', thinking: reply.reasoning, signature: `sig_${shortId(16)}` });
  }
  const text = reply.text ?? '';
  if (text !== '' || toolCalls.length === 0) blocks.push({ type: 'text', text });
  for (const call of toolCalls) {
    blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: parsedInput(call) });
  }
  return blocks;
}

function messageObject(
  request: NormalisedRequest,
  id: string,
  content: Record<string, unknown>[],
  stopReason: string | null,
  usage: Record<string, unknown>,
): Record<string, unknown> {
  return {
    id,
    type: 'message',
    role: 'assistant',
    model: request.model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage,
  };
}

async function sendStream(
  response: ServerResponse,
  request: NormalisedRequest,
  reply: ScriptedReply,
  signal: AbortSignal,
): Promise<void> {
  const toolCalls = resolveToolCalls(reply, 'toolu_');
  const usage = toWireUsage(resolveUsage(request, reply, toolCalls));
  const stream = EventStream.open(response, reply, signal, {
    'request-id': `req_${shortId(12)}`,
  });
  const events: Record<string, unknown>[] = [
    {
      type: 'message_start',
      message: messageObject(request, `msg_${shortId(12)}`, [], null, {
        ...usage,
        output_tokens: 1,
        output_tokens_details: undefined,
      }),
    },
    { type: 'ping' },
  ];
  contentBlocks(reply, toolCalls).forEach((block, index) => {
    if (block['type'] === 'thinking') {
      events.push({
        type: 'content_block_start',
        index,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      });
      for (const thinking of splitWords(String(block['thinking']))) {
        events.push({
          type: 'content_block_delta',
          index,
          delta: { type: 'thinking_delta', thinking },
        });
      }
      events.push({
        type: 'content_block_delta',
        index,
        delta: { type: 'signature_delta', signature: block['signature'] },
      });
    } else if (block['type'] === 'text') {
      events.push({
        type: 'content_block_start',
        index,
        content_block: { type: 'text', text: '' },
      });
      for (const text of splitWords(String(block['text']))) {
        events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
      }
    } else {
      const call = toolCalls.find((candidate) => candidate.id === block['id']);
      events.push({ type: 'content_block_start', index, content_block: { ...block, input: {} } });
      for (const partial_json of ['', ...splitArguments(call?.arguments ?? '')]) {
        events.push({
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json },
        });
      }
    }
    events.push({ type: 'content_block_stop', index });
  });
  events.push(
    {
      type: 'message_delta',
      delta: { stop_reason: toolCalls.length > 0 ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: {
        output_tokens: usage['output_tokens'],
        ...(usage['output_tokens_details'] === undefined
          ? {}
          : { output_tokens_details: usage['output_tokens_details'] }),
      },
    },
    { type: 'message_stop' },
  );
  for (const event of events) {
    if (!(await stream.send(`event: ${String(event['type'])}\ndata: ${JSON.stringify(event)}\n\n`)))
      return;
  }
  stream.end();
}

/** Answers with an Anthropic-shaped error body `{ type: 'error', error: { type, message } }`. */
function sendAnthropicError(
  response: ServerResponse,
  status: number,
  message: string,
  _code: string | null,
  headers: Record<string, string> = {},
): void {
  const requestId = `req_${shortId(12)}`;
  sendJson(
    response,
    status,
    { type: 'error', error: { type: errorType(status), message }, request_id: requestId },
    { 'request-id': requestId, ...headers },
  );
}

/**
 * The Anthropic Messages wire format (`POST /v1/messages`). `system` and the `messages`
 * (`text`, `thinking`, `tool_use` and `tool_result` blocks) are normalised to Chat
 * Completions-style messages for the script: `tool_use` blocks become `tool_calls` (arguments =
 * the input's JSON), each `tool_result` block a `tool` message; tools map to the nested shape.
 * Requests need `max_tokens` and `messages`, as the real API does.
 *
 * Streams `message_start` (usage with `input_tokens` = uncached prompt tokens and
 * `cache_read_input_tokens`), `ping`, then per block `content_block_start` / deltas /
 * `content_block_stop` — `thinking` (`thinking_delta` word by word, then `signature_delta`),
 * `text` (`text_delta` word by word), `tool_use` (`input_json_delta` with `partial_json`
 * fragments, raw, so invalid JSON arrives as scripted) — then `message_delta` (`stop_reason`
 * `tool_use` or `end_turn`, `usage.output_tokens`, `output_tokens_details.thinking_tokens` when
 * scripted) and `message_stop`. Otherwise one `message`
 * object (a tool input that is not a JSON object is sent as `{}` there). Errors use Anthropic's
 * shape `{ type: 'error', error: { type, message } }`.
 */
export const anthropicMessagesWire: WireFormatHandler = {
  format: 'anthropic-messages',
  paths: new Set(['/v1/messages', '/messages']),
  parse(body) {
    if (!isJsonObject(body) || !Array.isArray(body['messages'])) {
      return 'messages: Field required (the request body must be a JSON object with a "messages" array).';
    }
    if (typeof body['max_tokens'] !== 'number') return 'max_tokens: Field required';
    const anthropic = body as unknown as AnthropicMessagesRequest;
    const request: NormalisedRequest = {
      format: 'anthropic-messages',
      model: typeof anthropic.model === 'string' ? anthropic.model : 'scripted',
      messages: toMessages(anthropic),
      body,
    };
    if (Array.isArray(body['tools'])) request.tools = toTools(body['tools']);
    if (typeof anthropic.stream === 'boolean') request.stream = anthropic.stream;
    return request;
  },
  sendError: sendAnthropicError,
  async sendReply(response, request, reply, signal) {
    if (request.stream === true) {
      await sendStream(response, request, reply, signal);
      return;
    }
    const toolCalls = resolveToolCalls(reply, 'toolu_');
    const body = messageObject(
      request,
      `msg_${shortId(12)}`,
      contentBlocks(reply, toolCalls),
      toolCalls.length > 0 ? 'tool_use' : 'end_turn',
      toWireUsage(resolveUsage(request, reply, toolCalls)),
    );
    sendAnswer(response, body, reply, { 'request-id': `req_${shortId(12)}` });
  },
};
