import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ModelScriptRequest, ScriptedReply, WireFormat } from '../model-script.ts';

/**
 * Shared plumbing of the scripted model server's wire formats (`chat-completions.ts`,
 * `responses.ts`, `anthropic-messages.ts`): the {@link WireFormatHandler} contract, HTTP and SSE
 * writing with delays, back-pressure and scripted cuts, ids, token estimates.
 */

/** One request as normalised by a wire format, plus its format and raw body (always set). */
export type NormalisedRequest = ModelScriptRequest & {
  format: WireFormat;
  body: Record<string, unknown>;
};

/** What a wire format does for the server: route, validate and normalise, answer, fail. */
export interface WireFormatHandler {
  readonly format: WireFormat;
  /** Request paths served, without a trailing slash (e.g. `/v1/messages`, `/messages`). */
  readonly paths: ReadonlySet<string>;
  /** Validates and normalises a parsed JSON body; a string is the 400 message to answer with. */
  parse(body: unknown): NormalisedRequest | string;
  /** Answers with an error body in this format's shape. */
  sendError(
    response: ServerResponse,
    status: number,
    message: string,
    code: string | null,
    headers?: Record<string, string>,
  ): void;
  /** Answers one successful reply, streamed or not as the request asked. */
  sendReply(
    response: ServerResponse,
    request: NormalisedRequest,
    reply: ScriptedReply,
    signal: AbortSignal,
  ): Promise<void>;
}

/** A scripted tool call with its id and its arguments as the JSON text to send. */
export interface ResolvedToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** Token counts of one answer (see `ScriptedUsage`); optional ones only when scripted. */
export interface ResolvedUsage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens?: number;
  reasoningTokens?: number;
}

/** Largest accepted request body, in bytes. */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** Headers that let a browser page (the playground) call the server from another origin. */
export const CORS_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, GET, OPTIONS',
  'access-control-allow-headers': '*, authorization, content-type',
  'access-control-expose-headers': '*',
  'access-control-max-age': '600',
};

/** `bytes` random bytes as lowercase hex. */
export function shortId(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** True for a plain JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Sends `body` as JSON with CORS headers (unless the response is already finished). */
export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (response.writableEnded || response.destroyed) return;
  const text = JSON.stringify(body);
  response.writeHead(status, {
    ...CORS_HEADERS,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'x-request-id': `req_${shortId(8)}`,
    ...headers,
  });
  response.end(text);
}

/**
 * Sends a non-streaming answer, or only the first half of its bytes before dropping the
 * connection when the reply has `cutAfterChunks`.
 */
export function sendAnswer(
  response: ServerResponse,
  body: unknown,
  reply: ScriptedReply,
  headers: Record<string, string> = {},
): void {
  if (reply.cutAfterChunks === undefined) {
    sendJson(response, 200, body, { ...headers, ...reply.headers });
    return;
  }
  const bytes = Buffer.from(JSON.stringify(body), 'utf8');
  response.writeHead(200, {
    ...CORS_HEADERS,
    'content-type': 'application/json',
    'content-length': bytes.length,
    ...headers,
    ...reply.headers,
  });
  const socket = response.socket;
  response.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => socket?.destroy());
}

/**
 * Reads the whole request body as UTF-8.
 *
 * @throws Error when the body exceeds {@link MAX_BODY_BYTES} or the upload fails.
 */
export function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('Request body too large.'));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/** Resolves after `milliseconds`, or early when `signal` aborts. */
export function sleep(milliseconds: number, signal: AbortSignal): Promise<void> {
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
export function splitWords(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/** Splits a tool call's arguments into 2–3 fragments (fewer only when the text is that short). */
export function splitArguments(text: string): string[] {
  if (text.length === 0) return [];
  const count = Math.min(3, text.length);
  const size = Math.ceil(text.length / count);
  const fragments: string[] = [];
  for (let start = 0; start < text.length; start += size) {
    fragments.push(text.slice(start, start + size));
  }
  return fragments;
}

/** The reply's tool calls with ids (`<idPrefix><random>` unless scripted) and JSON text. */
export function resolveToolCalls(reply: ScriptedReply, idPrefix: string): ResolvedToolCall[] {
  return (reply.toolCalls ?? []).map((call) => ({
    id: call.id ?? `${idPrefix}${shortId(12)}`,
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
  }));
}

/** The reply's token counts: scripted ones, otherwise estimated as ceil(characters / 4). */
export function resolveUsage(
  request: NormalisedRequest,
  reply: ScriptedReply,
  toolCalls: readonly ResolvedToolCall[],
): ResolvedUsage {
  const completionCharacters =
    (reply.text ?? '').length +
    (reply.reasoning ?? '').length +
    toolCalls.reduce((total, call) => total + call.name.length + call.arguments.length, 0);
  const usage: ResolvedUsage = {
    promptTokens:
      reply.usage?.promptTokens ?? Math.ceil(JSON.stringify(request.messages).length / 4),
    completionTokens: reply.usage?.completionTokens ?? Math.ceil(completionCharacters / 4),
  };
  if (reply.usage?.cachedTokens !== undefined) usage.cachedTokens = reply.usage.cachedTokens;
  if (reply.usage?.reasoningTokens !== undefined) {
    usage.reasoningTokens = reply.usage.reasoningTokens;
  }
  return usage;
}

/**
 * A server-sent-events response that applies a reply's `delayMs` between chunks, waits for
 * `drain` under back-pressure, stops once the client left, and drops the connection after
 * `cutAfterChunks` chunks.
 */
export class EventStream {
  readonly #response: ServerResponse;
  readonly #signal: AbortSignal;
  readonly #delayMs: number;
  readonly #cutAfterChunks: number | undefined;
  readonly #socket: Socket | null;
  #sent = 0;
  #closed = false;

  private constructor(response: ServerResponse, reply: ScriptedReply, signal: AbortSignal) {
    this.#response = response;
    this.#signal = signal;
    this.#delayMs = reply.delayMs ?? 0;
    this.#cutAfterChunks = reply.cutAfterChunks;
    this.#socket = response.socket;
  }

  /**
   * Writes the 200 head (SSE content type, CORS, `headers`, the reply's headers) and returns the
   * stream. With `cutAfterChunks` the body is close-delimited (no chunked framing), so the cut
   * looks like a clean end of the body to the client.
   */
  static open(
    response: ServerResponse,
    reply: ScriptedReply,
    signal: AbortSignal,
    headers: Record<string, string> = {},
  ): EventStream {
    const stream = new EventStream(response, reply, signal);
    const cut = reply.cutAfterChunks !== undefined;
    if (cut) response.removeHeader('transfer-encoding');
    response.writeHead(200, {
      ...CORS_HEADERS,
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: cut ? 'close' : 'keep-alive',
      ...headers,
      ...reply.headers,
    });
    response.flushHeaders();
    if (reply.cutAfterChunks !== undefined && reply.cutAfterChunks <= 0) stream.#cut();
    return stream;
  }

  /** False once the client left or the scripted cut happened: stop producing then. */
  get isOpen(): boolean {
    return !this.#closed && !this.#signal.aborted && !this.#response.destroyed;
  }

  /** Sends one chunk (after the delay, except for the first). Resolves false once closed. */
  async send(text: string): Promise<boolean> {
    if (this.#sent > 0) await sleep(this.#delayMs, this.#signal);
    if (!this.isOpen || this.#response.writableEnded) return false;
    const cutNow = this.#cutAfterChunks !== undefined && this.#sent + 1 >= this.#cutAfterChunks;
    this.#sent += 1;
    if (cutNow) {
      this.#closed = true;
      this.#response.write(text, () => this.#socket?.destroy());
      return false;
    }
    if (this.#response.write(text)) return true;
    return await new Promise((resolve) => {
      const finish = (): void => {
        this.#response.off('drain', finish);
        this.#signal.removeEventListener('abort', finish);
        resolve(this.isOpen);
      };
      this.#response.on('drain', finish);
      this.#signal.addEventListener('abort', finish, { once: true });
    });
  }

  /** Ends the response normally (unless it was cut or the client left). */
  end(): void {
    if (this.isOpen && !this.#response.writableEnded) this.#response.end();
  }

  #cut(): void {
    this.#closed = true;
    // `end` (not `destroy`) so the queued head still goes out before the connection closes.
    this.#socket?.end();
  }
}
