import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type {
  JSONRPCMessage,
  StreamableHTTPClientTransportOptions,
} from '@modelcontextprotocol/client';
import type { JsonRpcId } from './trace-server-requests.ts';

/** The options the SDK transport's `send` takes. */
type SendOptions = Parameters<StreamableHTTPClientTransport['send']>[1];

/**
 * Once this many requests are waiting, the next request first forgets the ones the SDK aborted
 * (their streams end without a word: see {@link SessionTransport}). Doubles with what is left.
 */
const FIRST_SWEEP_AT = 64;

/**
 * The Streamable HTTP transport of one session: the SDK's, plus one thing it lacks. When the
 * SSE answer to a request ends or breaks before the response arrived and will not be resumed,
 * the SDK (2.4) only reports it through `onerror` and leaves the request pending until its
 * timeout. This transport then calls `onAnswerLost(id)`, so that exactly that request can fail
 * at once (`McpSession.answerLost`).
 *
 * How: the SDK's `send(message, options)` honours `options.onRequestStreamEnd`, called when a
 * POST's SSE answer ended or broke and will not be resumed (also after its resumption attempts
 * ran out), and not when the SDK aborted it on purpose (close, cancellation). `Protocol` does not
 * pass one for its requests, so this transport adds it per request. A stream that ends after the
 * response is no loss: the transport notes responses as they pass (`onmessage`, set before the
 * client connects, which `Protocol.connect` calls first). Nothing reads or wraps the stream: the
 * SDK's own parse is the only one.
 *
 * A request answered with JSON, one whose POST failed, and one the SDK aborted are forgotten
 * too (the last when the waiting list grows: the SDK gives no word of it).
 */
export class SessionTransport extends StreamableHTTPClientTransport {
  readonly #onAnswerLost: (id: JsonRpcId) => void;
  /** Requests sent and not answered yet: id → the SDK's per-request signal (2026-07-28 era). */
  readonly #waiting = new Map<JsonRpcId, AbortSignal | undefined>();
  #sweepAt = FIRST_SWEEP_AT;

  /**
   * @param url The MCP endpoint.
   * @param options The SDK transport's options.
   * @param onAnswerLost Called with the id of a request whose SSE answer ended or broke before
   *   the response, and cannot be resumed.
   */
  constructor(
    url: URL,
    options: StreamableHTTPClientTransportOptions,
    onAnswerLost: (id: JsonRpcId) => void,
  ) {
    super(url, options);
    this.#onAnswerLost = onAnswerLost;
    // A response: its request has its answer, whatever its stream does next.
    this.onmessage = (message) => {
      if (!('method' in message) && 'id' in message && message.id !== undefined) {
        this.#waiting.delete(message.id);
      }
    };
  }

  override send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    // Only a request (method and id) has an answer to lose; a resumed one (`resumptionToken`)
    // travels on a GET the SDK gives no end notice for.
    if (!('method' in message) || !('id' in message) || options?.resumptionToken !== undefined) {
      return super.send(message, options);
    }
    const id = message.id;
    if (this.#waiting.size >= this.#sweepAt) this.#forgetAborted();
    this.#waiting.set(id, options?.requestSignal);
    const theirs = options?.onRequestStreamEnd;
    const sent = super.send(message, {
      ...options,
      onRequestStreamEnd: () => {
        if (this.#waiting.delete(id)) this.#onAnswerLost(id);
        theirs?.();
      },
    });
    // The POST failed: the SDK rejects the request itself.
    sent.catch(() => this.#waiting.delete(id));
    return sent;
  }

  /** Forgets the requests whose signal the SDK aborted (cancelled, timed out). */
  #forgetAborted(): void {
    for (const [id, signal] of this.#waiting) {
      if (signal?.aborted === true) this.#waiting.delete(id);
    }
    this.#sweepAt = Math.max(FIRST_SWEEP_AT, this.#waiting.size * 2);
  }
}
