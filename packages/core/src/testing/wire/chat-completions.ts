import type { ServerResponse } from 'node:http';
import type { ChatRequest, ScriptedReply } from '../model-script.ts';
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

/** The OpenAI error `type` for an HTTP status. */
export function openaiErrorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/** Answers with an OpenAI-shaped error body `{ error: { message, type, param, code } }`. */
export function sendOpenAIError(
  response: ServerResponse,
  status: number,
  message: string,
  code: string | null,
  headers: Record<string, string> = {},
): void {
  sendJson(
    response,
    status,
    { error: { message, type: openaiErrorType(status), param: null, code } },
    headers,
  );
}

function toWireUsage(usage: ResolvedUsage): Record<string, unknown> {
  const wire: Record<string, unknown> = {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
  if (usage.cachedTokens !== undefined) {
    wire['prompt_tokens_details'] = { cached_tokens: usage.cachedTokens };
  }
  if (usage.reasoningTokens !== undefined) {
    wire['completion_tokens_details'] = { reasoning_tokens: usage.reasoningTokens };
  }
  return wire;
}

function toWireToolCall(call: ResolvedToolCall): Record<string, unknown> {
  return {
    id: call.id,
    type: 'function',
    function: { name: call.name, arguments: call.arguments },
  };
}

async function sendStream(
  response: ServerResponse,
  request: NormalisedRequest,
  reply: ScriptedReply,
  signal: AbortSignal,
): Promise<void> {
  const body = request.body as Partial<ChatRequest>;
  const id = `chatcmpl-${shortId(12)}`;
  const created = Math.floor(Date.now() / 1000);
  const includeUsage = body.stream_options?.include_usage === true;
  const toolCalls = resolveToolCalls(reply, 'call_');
  const stream = EventStream.open(response, reply, signal, {
    'x-request-id': `req_${shortId(8)}`,
  });

  const deltas: { delta: Record<string, unknown>; finishReason: string | null }[] = [
    { delta: { role: 'assistant', content: '' }, finishReason: null },
  ];
  for (const piece of splitWords(reply.reasoning ?? '')) {
    deltas.push({ delta: { reasoning_content: piece }, finishReason: null });
  }
  for (const piece of splitWords(reply.text ?? '')) {
    deltas.push({ delta: { content: piece }, finishReason: null });
  }
  toolCalls.forEach((call, index) => {
    deltas.push({
      delta: {
        tool_calls: [
          { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
        ],
      },
      finishReason: null,
    });
    for (const fragment of splitArguments(call.arguments)) {
      deltas.push({
        delta: { tool_calls: [{ index, function: { arguments: fragment } }] },
        finishReason: null,
      });
    }
  });
  deltas.push({ delta: {}, finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop' });

  const chunk = (choices: unknown[], usage?: Record<string, unknown>): string => {
    const data = {
      id,
      object: 'chat.completion.chunk',
      created,
      model: request.model,
      system_fingerprint: null,
      choices,
      ...(includeUsage ? { usage: usage ?? null } : {}),
    };
    return `data: ${JSON.stringify(data)}\n\n`;
  };
  for (const { delta, finishReason } of deltas) {
    const choice = { index: 0, delta, logprobs: null, finish_reason: finishReason };
    if (!(await stream.send(chunk([choice])))) return;
  }
  if (includeUsage) {
    const usage = toWireUsage(resolveUsage(request, reply, toolCalls));
    if (!(await stream.send(chunk([], usage)))) return;
  }
  if (!(await stream.send('data: [DONE]\n\n'))) return;
  stream.end();
}

function sendCompletion(
  response: ServerResponse,
  request: NormalisedRequest,
  reply: ScriptedReply,
): void {
  const toolCalls = resolveToolCalls(reply, 'call_');
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: reply.text ?? (toolCalls.length > 0 ? null : ''),
    refusal: null,
  };
  if (reply.reasoning !== undefined) message['reasoning_content'] = reply.reasoning;
  if (toolCalls.length > 0) message['tool_calls'] = toolCalls.map(toWireToolCall);
  sendAnswer(
    response,
    {
      id: `chatcmpl-${shortId(12)}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: request.model,
      system_fingerprint: null,
      choices: [
        {
          index: 0,
          message,
          logprobs: null,
          finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
        },
      ],
      usage: toWireUsage(resolveUsage(request, reply, toolCalls)),
    },
    reply,
  );
}

/**
 * The OpenAI Chat Completions wire format (`POST /v1/chat/completions`): the body already is the
 * script's normalised shape. Streams `data: <chat.completion.chunk>` lines (role chunk, reasoning
 * as `delta.reasoning_content`, text word by word, tool calls as an id/name chunk then 2–3
 * argument fragments, a finish chunk, with `stream_options.include_usage` a usage chunk with
 * empty `choices`) ending with `data: [DONE]`; otherwise one `chat.completion` object.
 */
export const chatCompletionsWire: WireFormatHandler = {
  format: 'chat-completions',
  paths: new Set(['/v1/chat/completions', '/chat/completions']),
  parse(body) {
    if (!isJsonObject(body) || !Array.isArray(body['messages'])) {
      return 'The request body must be a JSON object with a "messages" array.';
    }
    const chat = body as unknown as ChatRequest;
    const request: NormalisedRequest = {
      format: 'chat-completions',
      model: typeof chat.model === 'string' ? chat.model : 'scripted',
      messages: chat.messages,
      body,
    };
    if (chat.tools !== undefined) request.tools = chat.tools;
    if (chat.stream !== undefined) request.stream = chat.stream;
    return request;
  },
  sendError: sendOpenAIError,
  async sendReply(response, request, reply, signal) {
    if (request.stream === true) await sendStream(response, request, reply, signal);
    else sendCompletion(response, request, reply);
  },
};
