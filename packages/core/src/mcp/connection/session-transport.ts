import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type {
  JSONRPCMessage,
  StreamableHTTPClientTransportOptions,
} from '@modelcontextprotocol/client';

type SendOptions = Parameters<StreamableHTTPClientTransport['send']>[1];

/**
 * The header that carries a request's tag from {@link SessionTransport.send} to the session
 * fetch, which removes it before anything else sees the request (it never reaches the network).
 */
export const REQUEST_SIGNAL_HEADER = 'x-switchboard-request-signal';

/**
 * The per-request signals of one session's requests in flight, by tag: how the session fetch
 * finds the signal of the request it is sending (see {@link SessionTransport}).
 */
export class RequestSignals {
  #next = 0;
  readonly #signals = new Map<string, AbortSignal>();

  /** Keeps `signal` and returns its tag, until {@link forget} is called with the tag. */
  add(signal: AbortSignal): string {
    this.#next += 1;
    const tag = String(this.#next);
    this.#signals.set(tag, signal);
    return tag;
  }

  get(tag: string): AbortSignal | undefined {
    return this.#signals.get(tag);
  }

  /** Idempotent. */
  forget(tag: string): void {
    this.#signals.delete(tag);
  }
}

/**
 * The SDK's Streamable HTTP transport, except that a request's own signal (2026-07-28 era:
 * `TransportSendOptions.requestSignal`, aborted to cancel the request by closing its stream)
 * reaches the session fetch beside the transport's signal instead of combined with it.
 *
 * Why: the SDK's transport combines its one long-lived signal with each request's through
 * `AbortSignal.any`, and Node keeps a dependant reference on the long-lived source per call —
 * for ever on Node 20 (measured: 20,000 calls → 20,000 references, about 70 bytes each), and on
 * Node 22 until the combined signal is collected, which undici's listener on it delays
 * indefinitely. Here the SDK is never handed a request signal, so it combines nothing; the
 * request is tagged through the public per-request `headers` option instead, and the session
 * fetch links the two signals itself (`linkSignals`, released when the answer is read) and,
 * when the request signal aborts, abandons the request: the network request or its stream is
 * closed (the server sees the cancellation) and the SDK's read of it is left unanswered, so the
 * SDK reports no error and opens no resumption GET, as it does for an abort it knows as its own
 * (the request was already settled by the caller).
 *
 * A request sent with a `resumptionToken` keeps its signal as the SDK has it: that path sends
 * no per-request headers.
 */
export class SessionTransport extends StreamableHTTPClientTransport {
  readonly #requestSignals: RequestSignals;

  constructor(url: URL, options: StreamableHTTPClientTransportOptions, signals: RequestSignals) {
    super(url, options);
    this.#requestSignals = signals;
  }

  override async send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    if (options?.requestSignal === undefined || options.resumptionToken !== undefined) {
      return super.send(message, options);
    }
    const { requestSignal, ...others } = options;
    const tag = this.#requestSignals.add(requestSignal);
    try {
      await super.send(message, {
        ...others,
        headers: { ...others.headers, [REQUEST_SIGNAL_HEADER]: tag },
      });
    } finally {
      this.#requestSignals.forget(tag);
    }
  }
}
