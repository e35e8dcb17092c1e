import type { ServerResponse } from 'node:http';
import type {
  ChatContentPart,
  ChatRequestMessage,
  ChatRequestToolCall,
  ChatTool,
  ScriptedReply,
} from '../model-script.ts';
import { sendOpenAIError } from './chat-completions.ts';
import {
  EventStream,
  isJsonObject,
  resolveToolCalls,
  resolveUsage,
  sendAnswer,
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

/** A content part of a Responses input message (`input_text`, `output_text`, `input_image`, …). */
export interface ResponsesContentPart {
  type: string;
  /** The text, for `input_text` / `output_text` parts. */
  text?: string;
}

/**
 * One item of a Responses request `input`, as the scripted model server reads it: a message
 * (`type` may be omitted, as in the API's "easy" message shape), an earlier `function_call`, the
 * `function_call_output` answering it, or any other item (kept in the raw body, ignored by the
 * normalisation).
 */
export type ResponsesInputItem =
  | {
      type?: 'message';
      role: 'user' | 'assistant' | 'system' | 'developer';
      content: string | ResponsesContentPart[];
    }
  | { type: 'function_call'; call_id: string; name: string; arguments: string; id?: string }
  | { type: 'function_call_output'; call_id: string; output: string | ResponsesContentPart[] }
  | { type: 'reasoning'; summary?: ResponsesContentPart[] };

/** A function tool in the Responses wire shape (flat, unlike Chat Completions). */
export interface ResponsesTool {
  type: string;
  name?: string;
  description?: string | null;
  parameters?: Record<string, unknown> | null;
  strict?: boolean | null;
}

/**
 * The parsed body of a `POST /v1/responses` request. Only the fields the scripted server and
 * tests care about are typed; anything else the client sent is still in the recorded `body`.
 */
export interface ResponsesRequest {
  model: string;
  /** A user message as plain text, or a list of input items. */
  input: string | ResponsesInputItem[];
  instructions?: string | null;
  tools?: ResponsesTool[];
  /** `true` for a server-sent-events stream of `response.*` events. */
  stream?: boolean | null;
  store?: boolean | null;
  reasoning?: Record<string, unknown> | null;
}

function toContent(content: unknown): string | ChatContentPart[] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.filter(isJsonObject).map((part): ChatContentPart => {
    const type = typeof part['type'] === 'string' ? part['type'] : 'unknown';
    const text = part['text'];
    if ((type === 'input_text' || type === 'output_text') && typeof text === 'string') {
      return { type: 'text', text };
    }
    return { type };
  });
}

function toMessages(body: ResponsesRequest): ChatRequestMessage[] {
  const messages: ChatRequestMessage[] = [];
  if (typeof body.instructions === 'string' && body.instructions !== '') {
    messages.push({ role: 'system', content: body.instructions });
  }
  if (typeof body.input === 'string') {
    messages.push({ role: 'user', content: body.input });
    return messages;
  }
  for (const item of body.input as unknown[]) {
    if (!isJsonObject(item)) continue;
    const type = item['type'] ?? 'message';
    if (type === 'message') {
      const role = item['role'];
      const content = toContent(item['content']);
      if (role === 'assistant') messages.push({ role: 'assistant', content });
      else if (role === 'system' || role === 'developer') messages.push({ role, content });
      else messages.push({ role: 'user', content });
    } else if (type === 'function_call') {
      const call: ChatRequestToolCall = {
        id: String(item['call_id'] ?? ''),
        type: 'function',
        function: { name: String(item['name'] ?? ''), arguments: String(item['arguments'] ?? '') },
      };
      const last = messages.at(-1);
      if (last?.role === 'assistant') last.tool_calls = [...(last.tool_calls ?? []), call];
      else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
    } else if (type === 'function_call_output') {
      messages.push({
        role: 'tool',
        tool_call_id: String(item['call_id'] ?? ''),
        content: toContent(item['output']),
      });
    }
  }
  return messages;
}

function toTools(tools: readonly unknown[]): ChatTool[] {
  return tools.filter(isJsonObject).flatMap((tool): ChatTool[] => {
    if (tool['type'] !== 'function' || typeof tool['name'] !== 'string') return [];
    const converted: ChatTool = { type: 'function', function: { name: tool['name'] } };
    if (typeof tool['description'] === 'string') {
      converted.function.description = tool['description'];
    }
    if (isJsonObject(tool['parameters'])) converted.function.parameters = tool['parameters'];
    if (typeof tool['strict'] === 'boolean') converted.function.strict = tool['strict'];
    return [converted];
  });
}

function toWireUsage(usage: ResolvedUsage): Record<string, unknown> {
  return {
    input_tokens: usage.promptTokens,
    input_tokens_details: { cached_tokens: usage.cachedTokens ?? 0 },
    output_tokens: usage.completionTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
}

/** The output items of a reply (reasoning, message, function calls), each with its pieces. */
interface PlannedItem {
  done: Record<string, unknown>;
  kind: 'reasoning' | 'message' | 'function_call';
  pieces: string[];
}

function planOutput(reply: ScriptedReply, toolCalls: readonly ResolvedToolCall[]): PlannedItem[] {
  const items: PlannedItem[] = [];
  if (reply.reasoning !== undefined && reply.reasoning !== '') {
    items.push({
      kind: 'reasoning',
      pieces: splitWords(reply.reasoning),
      done: {
        id: `rs_${shortId(16)}`,
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: reply.reasoning }],
      },
    });
  }
  const text = reply.text ?? '';
  if (text !== '' || toolCalls.length === 0) {
    items.push({
      kind: 'message',
      pieces: splitWords(text),
      done: {
        id: `msg_${shortId(16)}`,
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
      },
    });
  }
  for (const call of toolCalls) {
    items.push({
      kind: 'function_call',
      pieces: splitArguments(call.arguments),
      done: {
        id: `fc_${shortId(16)}`,
        type: 'function_call',
        status: 'completed',
        call_id: call.id,
        name: call.name,
        arguments: call.arguments,
      },
    });
  }
  return items;
}

function responseObject(
  request: NormalisedRequest,
  id: string,
  createdAt: number,
  status: 'in_progress' | 'completed',
  output: Record<string, unknown>[],
  usage: Record<string, unknown> | null,
): Record<string, unknown> {
  const body = request.body as Partial<ResponsesRequest>;
  return {
    id,
    object: 'response',
    created_at: createdAt,
    status,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    model: request.model,
    output,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: body.tools ?? [],
    usage,
    metadata: {},
  };
}

/** The `response.*` events of one planned output item at `outputIndex`, in the official order. */
function itemEvents(item: PlannedItem, outputIndex: number): [string, Record<string, unknown>][] {
  const itemId = item.done['id'];
  const at = { item_id: itemId, output_index: outputIndex };
  const events: [string, Record<string, unknown>][] = [];
  if (item.kind === 'reasoning') {
    const text = item.pieces.join('');
    events.push([
      'response.output_item.added',
      { output_index: outputIndex, item: { ...item.done, summary: [] } },
    ]);
    events.push([
      'response.reasoning_summary_part.added',
      { ...at, summary_index: 0, part: { type: 'summary_text', text: '' } },
    ]);
    for (const delta of item.pieces) {
      events.push(['response.reasoning_summary_text.delta', { ...at, summary_index: 0, delta }]);
    }
    events.push(['response.reasoning_summary_text.done', { ...at, summary_index: 0, text }]);
    events.push([
      'response.reasoning_summary_part.done',
      { ...at, summary_index: 0, part: { type: 'summary_text', text } },
    ]);
  } else if (item.kind === 'message') {
    const text = item.pieces.join('');
    const part = { type: 'output_text', text: '', annotations: [], logprobs: [] };
    events.push([
      'response.output_item.added',
      { output_index: outputIndex, item: { ...item.done, status: 'in_progress', content: [] } },
    ]);
    events.push(['response.content_part.added', { ...at, content_index: 0, part }]);
    for (const delta of item.pieces) {
      events.push(['response.output_text.delta', { ...at, content_index: 0, delta, logprobs: [] }]);
    }
    events.push(['response.output_text.done', { ...at, content_index: 0, text, logprobs: [] }]);
    events.push([
      'response.content_part.done',
      { ...at, content_index: 0, part: { ...part, text } },
    ]);
  } else {
    events.push([
      'response.output_item.added',
      { output_index: outputIndex, item: { ...item.done, status: 'in_progress', arguments: '' } },
    ]);
    for (const delta of item.pieces) {
      events.push(['response.function_call_arguments.delta', { ...at, delta }]);
    }
    events.push([
      'response.function_call_arguments.done',
      { ...at, name: item.done['name'], arguments: item.done['arguments'] },
    ]);
  }
  events.push(['response.output_item.done', { output_index: outputIndex, item: item.done }]);
  return events;
}

async function sendStream(
  response: ServerResponse,
  request: NormalisedRequest,
  reply: ScriptedReply,
  signal: AbortSignal,
): Promise<void> {
  const id = `resp_${shortId(24)}`;
  const createdAt = Math.floor(Date.now() / 1000);
  const toolCalls = resolveToolCalls(reply, 'call_');
  const items = planOutput(reply, toolCalls);
  const usage = toWireUsage(resolveUsage(request, reply, toolCalls));
  const stream = EventStream.open(response, reply, signal, {
    'x-request-id': `req_${shortId(8)}`,
  });

  const inProgress = responseObject(request, id, createdAt, 'in_progress', [], null);
  const events: [string, Record<string, unknown>][] = [
    ['response.created', { response: inProgress }],
    ['response.in_progress', { response: inProgress }],
    ...items.flatMap((item, index) => itemEvents(item, index)),
    [
      'response.completed',
      {
        response: responseObject(
          request,
          id,
          createdAt,
          'completed',
          items.map((item) => item.done),
          usage,
        ),
      },
    ],
  ];
  let sequence = 0;
  for (const [type, fields] of events) {
    const data = JSON.stringify({ type, sequence_number: sequence, ...fields });
    sequence += 1;
    if (!(await stream.send(`event: ${type}\ndata: ${data}\n\n`))) return;
  }
  stream.end();
}

/**
 * The OpenAI Responses wire format (`POST /v1/responses`). `instructions` and the `input` items
 * (`message`, `function_call`, `function_call_output`; reasoning items ignored) are normalised to
 * Chat Completions-style messages for the script; function tools are mapped to the nested
 * Chat Completions tool shape.
 *
 * Streams the official event sequence with `event:` names and a `sequence_number`:
 * `response.created`, `response.in_progress`, then per output item `response.output_item.added`
 * … `response.output_item.done` — reasoning as `response.reasoning_summary_part.added` /
 * `response.reasoning_summary_text.delta` (word by word) / `.done`, text as
 * `response.content_part.added` / `response.output_text.delta` / `response.output_text.done` /
 * `response.content_part.done`, tool calls as `response.function_call_arguments.delta` (2–3
 * fragments) / `.done` — and `response.completed` with `usage { input_tokens,
 * input_tokens_details.cached_tokens, output_tokens, output_tokens_details.reasoning_tokens }`.
 * Otherwise one `response` object. Errors use the OpenAI shape.
 */
export const responsesWire: WireFormatHandler = {
  format: 'responses',
  paths: new Set(['/v1/responses', '/responses']),
  parse(body) {
    if (!isJsonObject(body)) return 'The request body must be a JSON object.';
    const input = body['input'];
    if (typeof input !== 'string' && !Array.isArray(input)) {
      return 'The request body must have an "input" string or array of items.';
    }
    const responses = body as unknown as ResponsesRequest;
    const request: NormalisedRequest = {
      format: 'responses',
      model: typeof responses.model === 'string' ? responses.model : 'scripted',
      messages: toMessages(responses),
      body,
    };
    if (Array.isArray(body['tools'])) request.tools = toTools(body['tools']);
    if (typeof responses.stream === 'boolean') request.stream = responses.stream;
    return request;
  },
  sendError: sendOpenAIError,
  async sendReply(response, request, reply, signal) {
    if (request.stream === true) {
      await sendStream(response, request, reply, signal);
      return;
    }
    const toolCalls = resolveToolCalls(reply, 'call_');
    const items = planOutput(reply, toolCalls);
    const usage = toWireUsage(resolveUsage(request, reply, toolCalls));
    const body = responseObject(
      request,
      `resp_${shortId(24)}`,
      Math.floor(Date.now() / 1000),
      'completed',
      items.map((item) => item.done),
      usage,
    );
    sendAnswer(response, body, reply, { 'x-request-id': `req_${shortId(8)}` });
  },
};
