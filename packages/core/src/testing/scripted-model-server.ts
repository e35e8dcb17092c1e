import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import { defaultModelScript } from './model-script.ts';
import type { ChatRequest, ModelScript, ScriptedReply } from './model-script.ts';

/**
 * One Chat Completions request the scripted model server received: the parsed JSON body exactly
 * as the client sent it. Only requests to the chat completions route with a valid JSON object
 * body are recorded.
 */
export type ChatRequestRecord = ChatRequest;

/** Options of {@link startScriptedModelServer}. */
export interface ScriptedModelServerOptions {
  /** TCP port on 127.0.0.1. Default 0: an ephemeral port chosen by the system. */
  port?: number;
  /** Decides each reply. Default {@link defaultModelScript}. */
  script?: ModelScript;
  /** Aborting closes the server (as `close()` does); already aborted → the start rejects. */
  signal?: AbortSignal;
}

/** A running scripted model server. */
export interface ScriptedModelServer {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:54321`; the API is under `/v1`. */
  url: string;
  /** Every chat completions request body received, oldest first (a live array). */
  requests: ChatRequestRecord[];
  /**
   * Stops listening, ends in-flight streams and destroys every open socket. Resolves once the
   * server is closed; calling it again resolves immediately.
   */
  close(): Promise<void>;
}

/** Largest accepted request body, in bytes. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

const CORS_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, GET, OPTIONS',
  'access-control-allow-headers': '*, authorization, content-type',
  'access-control-expose-headers': '*',
  'access-control-max-age': '600',
};

const CHAT_PATHS = new Set(['/v1/chat/completions', '/chat/completions']);
const MODELS_PATHS = new Set(['/v1/models', '/models']);

interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

interface WireUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

function shortId(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

function errorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  if (response.writableEnded || response.destroyed) return;
  const text = JSON.stringify(body);
  response.writeHead(status, {
    ...CORS_HEADERS,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'x-request-id': `req_${shortId(8)}`,
  });
  response.end(text);
}

function sendError(
  response: ServerResponse,
  status: number,
  message: string,
  code: string | null,
): void {
  sendJson(response, status, { error: { message, type: errorType(status), param: null, code } });
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new SwitchboardError('invalid_input', 'Request body too large.'));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function isChatRequest(value: unknown): value is ChatRequest {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Array.isArray((value as { messages?: unknown }).messages)
  );
}

/** Resolves after `milliseconds`, or early when `signal` aborts. */
function sleep(milliseconds: number, signal: AbortSignal): Promise<void> {
  if (milliseconds <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, milliseconds);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Splits text into words with their trailing spaces, so the pieces concatenate exactly. */
function splitWords(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/** Splits a tool call's arguments into 2–3 fragments (fewer only when the text is that short). */
function splitArguments(text: string): string[] {
  if (text.length === 0) return [];
  const count = Math.min(3, text.length);
  const size = Math.ceil(text.length / count);
  const fragments: string[] = [];
  for (let start = 0; start < text.length; start += size) {
    fragments.push(text.slice(start, start + size));
  }
  return fragments;
}

function estimateTokens(characters: number): number {
  return Math.ceil(characters / 4);
}

function toWireToolCalls(reply: ScriptedReply): WireToolCall[] {
  return (reply.toolCalls ?? []).map((call) => ({
    id: call.id ?? `call_${shortId(12)}`,
    type: 'function',
    function: {
      name: call.name,
      arguments:
        typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
    },
  }));
}

function computeUsage(
  request: ChatRequest,
  reply: ScriptedReply,
  toolCalls: WireToolCall[],
): WireUsage {
  const promptTokens =
    reply.usage?.promptTokens ?? estimateTokens(JSON.stringify(request.messages).length);
  const completionCharacters =
    (reply.text ?? '').length +
    (reply.reasoning ?? '').length +
    toolCalls.reduce(
      (total, call) => total + call.function.name.length + call.function.arguments.length,
      0,
    );
  const completionTokens = reply.usage?.completionTokens ?? estimateTokens(completionCharacters);
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
}

/** Writes one chunk; waits for `drain` under back-pressure. Resolves false once the client left. */
function write(response: ServerResponse, text: string, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted || response.writableEnded || response.destroyed) {
    return Promise.resolve(false);
  }
  if (response.write(text)) return Promise.resolve(true);
  return new Promise((resolve) => {
    function finish(): void {
      response.off('drain', finish);
      signal.removeEventListener('abort', finish);
      resolve(!signal.aborted);
    }
    response.on('drain', finish);
    signal.addEventListener('abort', finish, { once: true });
  });
}

async function sendStream(
  response: ServerResponse,
  request: ChatRequest,
  reply: ScriptedReply,
  signal: AbortSignal,
): Promise<void> {
  const id = `chatcmpl-${shortId(12)}`;
  const created = Math.floor(Date.now() / 1000);
  const model = typeof request.model === 'string' ? request.model : 'scripted';
  const includeUsage = request.stream_options?.include_usage === true;
  const delayMs = reply.delayMs ?? 0;
  const toolCalls = toWireToolCalls(reply);

  response.writeHead(200, {
    ...CORS_HEADERS,
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-request-id': `req_${shortId(8)}`,
  });
  response.flushHeaders();

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
          {
            index,
            id: call.id,
            type: 'function',
            function: { name: call.function.name, arguments: '' },
          },
        ],
      },
      finishReason: null,
    });
    for (const fragment of splitArguments(call.function.arguments)) {
      deltas.push({
        delta: { tool_calls: [{ index, function: { arguments: fragment } }] },
        finishReason: null,
      });
    }
  });
  deltas.push({ delta: {}, finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop' });

  let first = true;
  for (const { delta, finishReason } of deltas) {
    if (!first) await sleep(delayMs, signal);
    first = false;
    const chunk = {
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      system_fingerprint: null,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...(includeUsage ? { usage: null } : {}),
    };
    if (!(await write(response, `data: ${JSON.stringify(chunk)}\n\n`, signal))) return;
  }
  if (includeUsage) {
    await sleep(delayMs, signal);
    const chunk = {
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      system_fingerprint: null,
      choices: [],
      usage: computeUsage(request, reply, toolCalls),
    };
    if (!(await write(response, `data: ${JSON.stringify(chunk)}\n\n`, signal))) return;
  }
  if (!(await write(response, 'data: [DONE]\n\n', signal))) return;
  response.end();
}

function sendCompletion(
  response: ServerResponse,
  request: ChatRequest,
  reply: ScriptedReply,
): void {
  const toolCalls = toWireToolCalls(reply);
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: reply.text ?? (toolCalls.length > 0 ? null : ''),
    refusal: null,
  };
  if (reply.reasoning !== undefined) message['reasoning_content'] = reply.reasoning;
  if (toolCalls.length > 0) message['tool_calls'] = toolCalls;
  sendJson(response, 200, {
    id: `chatcmpl-${shortId(12)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: typeof request.model === 'string' ? request.model : 'scripted',
    system_fingerprint: null,
    choices: [
      {
        index: 0,
        message,
        logprobs: null,
        finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
      },
    ],
    usage: computeUsage(request, reply, toolCalls),
  });
}

/**
 * Starts an HTTP server on 127.0.0.1 that speaks the OpenAI Chat Completions wire format and
 * answers from a {@link ModelScript} instead of a model, so tests and the offline playground run
 * without network. Compatible with the official `openai` SDK
 * (`new OpenAI({ baseURL: server.url + '/v1', apiKey: 'x' })`).
 *
 * Routes:
 * - `POST /v1/chat/completions` (also `/chat/completions`): streaming (SSE
 *   `data: <chat.completion.chunk>` lines ending with `data: [DONE]`) when `stream` is true,
 *   otherwise one `chat.completion` JSON object. Text is streamed word by word, reasoning first as
 *   `delta.reasoning_content`, tool calls the OpenAI way (id/name chunk, then 2–3 argument
 *   fragments); with `stream_options.include_usage` a last chunk with empty `choices` carries
 *   `usage` (estimated as ceil(characters / 4) tokens unless the reply gives counts).
 * - `GET /v1/models` (also `/models`): one model, `scripted`.
 * - `OPTIONS *`: CORS preflight (204). Every response allows any origin.
 *
 * Errors use the OpenAI shape `{ error: { message, type, param, code } }`: 404 for unknown
 * routes, 405 for a wrong method, 400 for invalid JSON or a body without `messages`, 413 for a
 * body over 16 MiB, 500 when the script throws, and the reply's `status` when it scripts an error.
 * A client that disconnects mid-stream simply stops the stream.
 *
 * @param options Port (default 0, ephemeral), script (default {@link defaultModelScript}) and an
 *   abort signal that closes the server.
 * @returns The running server; always call `close()` when done.
 * @throws SwitchboardError `aborted` when `signal` is already aborted; the listen error (e.g.
 *   `EADDRINUSE`) when the port cannot be bound.
 */
export async function startScriptedModelServer(
  options: ScriptedModelServerOptions = {},
): Promise<ScriptedModelServer> {
  const { port = 0, script = defaultModelScript, signal } = options;
  if (signal?.aborted) {
    throw new SwitchboardError('aborted', 'The scripted model server start was aborted.', {
      cause: signal.reason,
    });
  }

  const requests: ChatRequestRecord[] = [];
  const inFlight = new Set<AbortController>();

  async function handleChat(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const controller = new AbortController();
    inFlight.add(controller);
    response.on('close', () => {
      controller.abort();
      inFlight.delete(controller);
    });

    let bodyText: string;
    try {
      bodyText = await readBody(request);
    } catch (error) {
      sendError(
        response,
        413,
        error instanceof Error ? error.message : 'Could not read the request body.',
        'request_too_large',
      );
      return;
    }

    let body: unknown;
    try {
      body = JSON.parse(bodyText);
    } catch {
      sendError(response, 400, 'The request body is not valid JSON.', 'invalid_json');
      return;
    }
    if (!isChatRequest(body)) {
      sendError(
        response,
        400,
        'The request body must be a JSON object with a "messages" array.',
        'invalid_request',
      );
      return;
    }
    requests.push(body);

    let reply: ScriptedReply;
    try {
      reply = await script(body);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      sendError(response, 500, `The model script failed: ${message}`, 'script_error');
      return;
    }
    if (controller.signal.aborted) return;

    if (reply.error !== undefined || (reply.status !== undefined && reply.status >= 400)) {
      const status = reply.status !== undefined && reply.status >= 400 ? reply.status : 500;
      sendError(response, status, reply.error ?? `Scripted error (HTTP ${status}).`, null);
      return;
    }

    if (body.stream === true) {
      await sendStream(response, body, reply, controller.signal);
    } else {
      await sleep(reply.delayMs ?? 0, controller.signal);
      if (controller.signal.aborted) return;
      sendCompletion(response, body, reply);
    }
  }

  function handle(request: IncomingMessage, response: ServerResponse): void {
    response.on('error', () => {
      // The client went away; nothing left to tell it.
    });
    request.on('error', () => {
      // Same: an aborted upload is not a server failure.
    });
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname.replace(/\/+$/, '');
    const method = request.method ?? 'GET';

    if (method === 'OPTIONS') {
      response.writeHead(204, { ...CORS_HEADERS, 'content-length': 0 });
      response.end();
      return;
    }
    if (CHAT_PATHS.has(path)) {
      if (method !== 'POST') {
        sendError(
          response,
          405,
          `Method ${method} is not allowed on ${path}.`,
          'method_not_allowed',
        );
        return;
      }
      handleChat(request, response).catch((error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        if (!response.headersSent) {
          sendError(response, 500, message, 'internal_error');
        } else {
          response.destroy();
        }
      });
      return;
    }
    if (MODELS_PATHS.has(path)) {
      if (method !== 'GET') {
        sendError(
          response,
          405,
          `Method ${method} is not allowed on ${path}.`,
          'method_not_allowed',
        );
        return;
      }
      sendJson(response, 200, {
        object: 'list',
        data: [{ id: 'scripted', object: 'model', created: 0, owned_by: 'switchboard' }],
      });
      return;
    }
    sendError(response, 404, `Unknown route: ${method} ${path || '/'}.`, 'unknown_url');
  }

  const server = createServer(handle);
  await new Promise<void>((resolve, reject) => {
    function onError(error: Error): void {
      reject(error);
    }
    server.once('error', onError);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', onError);
      resolve();
    });
  });
  server.on('error', () => {
    // Runtime socket errors never crash the test process.
  });
  server.on('clientError', (_error, socket) => {
    socket.destroy();
  });

  const address = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;

  function close(): Promise<void> {
    closing ??= new Promise<void>((resolve) => {
      signal?.removeEventListener('abort', onAbort);
      for (const controller of inFlight) controller.abort();
      inFlight.clear();
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closing;
  }
  function onAbort(): void {
    void close();
  }
  signal?.addEventListener('abort', onAbort, { once: true });

  return { url: `http://127.0.0.1:${address.port}`, requests, close };
}
