import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import { defaultModelScript } from './model-script.ts';
import type { ModelScript, ModelScriptRequest, ScriptedReply, WireFormat } from './model-script.ts';
import { anthropicMessagesWire } from './wire/anthropic-messages.ts';
import { chatCompletionsWire, sendOpenAIError } from './wire/chat-completions.ts';
import { responsesWire } from './wire/responses.ts';
import { CORS_HEADERS, readBody, sendJson, sleep } from './wire/wire-support.ts';
import type { WireFormatHandler } from './wire/wire-support.ts';

/**
 * One request the scripted model server received, in any wire format: the normalised request the
 * script saw (Chat Completions-style `model`, `messages`, `tools`, `stream`), the wire `format`
 * and the parsed JSON `body` exactly as the client sent it. For Chat Completions requests
 * `messages` and `tools` are the body's own. Only requests to a model route with a valid body are
 * recorded.
 */
export type ScriptedRequestRecord = ModelScriptRequest & {
  format: WireFormat;
  body: Record<string, unknown>;
};

/** @deprecated Use {@link ScriptedRequestRecord} (kept for existing imports; same type). */
export type ChatRequestRecord = ScriptedRequestRecord;

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
  /**
   * Base URL without a trailing slash, e.g. `http://127.0.0.1:54321`. OpenAI SDKs use
   * `${url}/v1` as `baseURL`; the Anthropic SDK uses `url` itself (it adds `/v1/messages`).
   */
  url: string;
  /** Every model request received (all wire formats), oldest first (a live array). */
  requests: ScriptedRequestRecord[];
  /**
   * Stops listening, ends in-flight streams and destroys every open socket. Resolves once the
   * server is closed; calling it again resolves immediately.
   */
  close(): Promise<void>;
}

const WIRE_FORMATS: readonly WireFormatHandler[] = [
  chatCompletionsWire,
  responsesWire,
  anthropicMessagesWire,
];
const MODELS_PATHS = new Set(['/v1/models', '/models']);

/**
 * Starts an HTTP server on 127.0.0.1 that speaks three model wire formats and answers from a
 * {@link ModelScript} instead of a model, so tests and the offline playground run without a
 * network. Works with the official SDKs: `new OpenAI({ baseURL: server.url + '/v1', apiKey: 'x' })`
 * and `new Anthropic({ baseURL: server.url, apiKey: 'x' })`.
 *
 * Routes (each also without the `/v1` prefix):
 * - `POST /v1/chat/completions`: OpenAI Chat Completions, streamed (`data:` chunks ending with
 *   `data: [DONE]`) or not (see `wire/chat-completions.ts`).
 * - `POST /v1/responses`: OpenAI Responses, streamed (`event: response.*` sequence ending with
 *   `response.completed`) or not (see `wire/responses.ts`).
 * - `POST /v1/messages`: Anthropic Messages, streamed (`message_start` … `message_stop`) or not
 *   (see `wire/anthropic-messages.ts`).
 * - `GET /v1/models`: one model, `scripted`.
 * - `OPTIONS *`: CORS preflight (204). Every response allows any origin.
 *
 * Every request is normalised to one {@link ModelScriptRequest} for the script and recorded in
 * `requests` with its format and raw body. Text is streamed word by word, reasoning first, tool
 * calls in 2–3 argument fragments; usage is estimated as ceil(characters / 4) tokens unless the
 * reply gives counts. A reply's `headers` are added to its response (e.g. `retry-after`), its
 * `delayMs` paces the chunks and its `cutAfterChunks` drops the connection mid-stream.
 *
 * Errors use the route's shape (OpenAI `{ error: { message, type, param, code } }`, Anthropic
 * `{ type: 'error', error: { type, message } }`; OpenAI's for unknown routes): 404 for unknown
 * routes, 405 for a wrong method, 400 for invalid JSON or a body the format rejects (no
 * `messages`, no `input`, no `max_tokens`), 413 for a body over 16 MiB, 500 when the script
 * throws, and the reply's `status` when it scripts an error. A client that disconnects mid-stream
 * simply stops the stream.
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

  const requests: ScriptedRequestRecord[] = [];
  const inFlight = new Set<AbortController>();

  async function handleModel(
    wire: WireFormatHandler,
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> {
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
      const message = error instanceof Error ? error.message : 'Could not read the request body.';
      wire.sendError(response, 413, message, 'request_too_large');
      return;
    }

    let body: unknown;
    try {
      body = JSON.parse(bodyText);
    } catch {
      wire.sendError(response, 400, 'The request body is not valid JSON.', 'invalid_json');
      return;
    }
    const normalised = wire.parse(body);
    if (typeof normalised === 'string') {
      wire.sendError(response, 400, normalised, 'invalid_request');
      return;
    }
    requests.push(normalised);

    let reply: ScriptedReply;
    try {
      reply = await script(normalised);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      wire.sendError(response, 500, `The model script failed: ${message}`, 'script_error');
      return;
    }
    if (controller.signal.aborted) return;

    if (reply.error !== undefined || (reply.status !== undefined && reply.status >= 400)) {
      const status = reply.status !== undefined && reply.status >= 400 ? reply.status : 500;
      const message = reply.error ?? `Scripted error (HTTP ${status}).`;
      wire.sendError(response, status, message, null, reply.headers);
      return;
    }

    if (normalised.stream !== true) {
      await sleep(reply.delayMs ?? 0, controller.signal);
      if (controller.signal.aborted) return;
    }
    await wire.sendReply(response, normalised, reply, controller.signal);
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
    const wire = WIRE_FORMATS.find((candidate) => candidate.paths.has(path));
    if (wire !== undefined) {
      if (method !== 'POST') {
        wire.sendError(
          response,
          405,
          `Method ${method} is not allowed on ${path}.`,
          'method_not_allowed',
        );
        return;
      }
      handleModel(wire, request, response).catch((error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        if (!response.headersSent) {
          wire.sendError(response, 500, message, 'internal_error');
        } else {
          response.destroy();
        }
      });
      return;
    }
    if (MODELS_PATHS.has(path)) {
      if (method !== 'GET') {
        sendOpenAIError(
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
    sendOpenAIError(response, 404, `Unknown route: ${method} ${path || '/'}.`, 'unknown_url');
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
