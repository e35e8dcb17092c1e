import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type {
  JSONRPCMessage,
  StreamableHTTPClientTransportOptions,
} from '@modelcontextprotocol/client';
import type { JsonRpcId } from './scan-server-requests.ts';

/** The options the SDK transport's `send` takes. */
type SendOptions = Parameters<StreamableHTTPClientTransport['send']>[1];

/**
 * The header that carries a request's tag from {@link SessionTransport.send} to the session
 * fetch, which removes it before anything else sees the request (it never reaches the network).
 */
export const REQUEST_SIGNAL_HEADER = 'x-switchboard-request-signal';

/**
 * Once this many requests are waiting, the next request first forgets the ones the SDK aborted
 * (their streams end without a word: see {@link SessionTransport}). Doubles with what is left.
 */
const FIRST_SWEEP_AT = 64;

/**
 * The per-request signals of one session's requests in flight, by tag: how the session fetch
 * finds the signal of the request it is sending (see {@link SessionTransport}).
 */
export class RequestSignals {
  #next = 0;
  readonly #signals = new Map<string, AbortSignal>();
  /**
   * The last SSE event id seen on each request's answer (its resumption token) → the signal of
   * that request, or of each request that saw it when a server reused it across requests.
   */
  readonly #byEvent = new Map<string, AbortSignal | AbortSignal[]>();

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

  /**
   * Keeps `signal` under an SSE event id of its request's answer, until {@link forgetEvent}: the
   * SDK resumes a cut answer with a GET that carries only that id (`Last-Event-ID`).
   */
  addEvent(eventId: string, signal: AbortSignal): void {
    const kept = this.#byEvent.get(eventId);
    if (kept === undefined) this.#byEvent.set(eventId, signal);
    else if (Array.isArray(kept)) {
      if (!kept.includes(signal)) kept.push(signal);
    } else if (kept !== signal) this.#byEvent.set(eventId, [kept, signal]);
  }

  /**
   * The signal of the request whose answer carried event `eventId`, for the GET that resumes it.
   * Undefined when none did, and when several did (a server that reuses ids across requests,
   * against the spec): that GET may be any one of theirs, so no cancel of one may close it — and
   * the id is then forgotten for all of them, none being held for a GET that went out unlinked.
   */
  forEvent(eventId: string): AbortSignal | undefined {
    const kept = this.#byEvent.get(eventId);
    if (!Array.isArray(kept)) return kept;
    this.#byEvent.delete(eventId);
    return undefined;
  }

  /**
   * Forgets `signal` under every event id (its request was abandoned: no GET will resume it).
   * Idempotent. Walks the ids of requests in flight, and runs only on a cancel.
   */
  forgetSignal(signal: AbortSignal): void {
    for (const eventId of this.#byEvent.keys()) this.forgetEvent(eventId, signal);
  }

  /** Forgets `signal` under `eventId`, leaving any other request's. Idempotent. */
  forgetEvent(eventId: string, signal: AbortSignal): void {
    const kept = this.#byEvent.get(eventId);
    if (kept === signal) this.#byEvent.delete(eventId);
    else if (Array.isArray(kept)) {
      const left = kept.filter((other) => other !== signal);
      this.#byEvent.set(eventId, left.length === 1 ? left[0]! : left);
    }
  }
}

/** What a {@link SessionTransport} reports to, and shares with, its session. */
export interface SessionTransportHooks {
  /**
   * Called with the id of a request whose SSE answer ended or broke before the response, and
   * cannot be resumed.
   */
  onAnswerLost: (id: JsonRpcId) => void;
  /** Where the session fetch finds each request's own signal (see {@link SessionTransport}). */
  requestSignals: RequestSignals;
}

/**
 * The Streamable HTTP transport of one session: the SDK's, with two differences.
 *
 * **A lost answer fails its request at once.** When the SSE answer to a request ends or breaks
 * before the response arrived and will not be resumed, the SDK (2.4) only reports it through
 * `onerror` and leaves the request pending until its timeout. This transport then calls
 * `onAnswerLost(id)`, so that exactly that request can fail now (`McpSession.answerLost`). How:
 * the SDK's `send(message, options)` honours `options.onRequestStreamEnd`, called when a POST's
 * SSE answer ended or broke and will not be resumed (also after its resumption attempts ran
 * out), and not when the SDK aborted it on purpose. `Protocol` does not pass one for its
 * requests, so this transport adds it per request. A stream that ends after the response is no
 * loss: the transport notes responses as they pass (`onmessage`, set before the client
 * connects, which `Protocol.connect` calls first). Nothing reads or wraps the stream for this.
 *
 * **A request's own signal is never combined with the transport's.** On the 2026-07-28 era the
 * SDK gives each request a signal (`TransportSendOptions.requestSignal`, aborted to cancel the
 * request by closing its stream) and combines it with its one long-lived signal through
 * `AbortSignal.any`; Node keeps a dependant reference on the long-lived source per call — for
 * ever on Node 20 (measured: 20,000 calls → 20,000 references, about 70 bytes each), and on
 * Node 22 until the combined signal is collected, which undici's listener on it delays
 * indefinitely. Here the SDK is never handed a request signal, so it combines nothing; the
 * request is tagged through the public per-request `headers` option instead, and the session
 * fetch links the two signals itself (`linkSignals`, released when the answer is read) and,
 * when the request signal aborts, abandons the request: the network request or its stream is
 * closed (the server sees the cancellation) and the SDK's read of it is left unanswered, so the
 * SDK reports no error and opens no resumption GET, as it does for an abort it knows as its own
 * (the request was already settled by the caller).
 *
 * **A resumed answer is cancelled the same way.** When a server that numbers its events (an
 * event store) ends or cuts an answer's stream before the response, the SDK resumes it with a
 * GET carrying the last event id (`Last-Event-ID`) and no per-request headers. So the transport
 * notes each request's last event id with its signal (`onresumptiontoken`, passed per request),
 * and the session fetch finds the signal of such a GET by that id: a cancel closes the resumed
 * stream too, and a resumption due after the cancel never leaves. Only the last id per request
 * is kept, until the request is answered or given up, or the session fetch abandons its stream
 * or its resuming GET (a cancelled request is not forgotten before, see `#forgetAborted`). An
 * id that several requests saw (a server that reuses ids across requests, against the spec)
 * names none of them: its GET goes out unlinked, as the SDK's own would, since a cancel of one
 * must never close another's.
 *
 * A request sent with a `resumptionToken` by the caller goes to the SDK as it is: it travels on
 * a GET that sends no per-request headers and gives no end notice.
 */
export class SessionTransport extends StreamableHTTPClientTransport {
  readonly #hooks: SessionTransportHooks;
  /** Requests sent and not answered yet: id → their own signal (2026-07-28 era). */
  readonly #waiting = new Map<JsonRpcId, AbortSignal | undefined>();
  /** The last SSE event id of each waiting request whose answer had one. */
  readonly #lastEvents = new Map<JsonRpcId, string>();
  #sweepAt = FIRST_SWEEP_AT;

  /**
   * @param url The MCP endpoint.
   * @param options The SDK transport's options.
   * @param hooks What the transport reports to and shares with its session.
   */
  constructor(
    url: URL,
    options: StreamableHTTPClientTransportOptions,
    hooks: SessionTransportHooks,
  ) {
    super(url, options);
    this.#hooks = hooks;
    // A response: its request has its answer, whatever its stream does next.
    this.onmessage = (message) => {
      if (!('method' in message) && 'id' in message && message.id !== undefined) {
        this.#settle(message.id);
      }
    };
  }

  override send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    // Only a request (method and id) has an answer to lose.
    if (!('method' in message) || !('id' in message) || options?.resumptionToken !== undefined) {
      return super.send(message, options);
    }
    const id = message.id;
    if (this.#waiting.size >= this.#sweepAt) this.#forgetAborted();
    const { requestSignal, ...others } = options ?? {};
    this.#waiting.set(id, requestSignal);
    const theirs = others.onRequestStreamEnd;
    const onRequestStreamEnd = (): void => {
      // A request its caller already gave up on (cancelled, timed out) has nobody to tell: an
      // error answer for its id would only reach the SDK as one for an unknown request.
      if (this.#settle(id) && requestSignal?.aborted !== true) {
        this.#hooks.onAnswerLost(id);
      }
      theirs?.();
    };
    const { requestSignals } = this.#hooks;
    const tag = requestSignal === undefined ? undefined : requestSignals.add(requestSignal);
    const sent = super.send(message, {
      ...others,
      onRequestStreamEnd,
      ...(tag === undefined || requestSignal === undefined
        ? {}
        : {
            headers: { ...others.headers, [REQUEST_SIGNAL_HEADER]: tag },
            onresumptiontoken: this.#noteEvents(id, requestSignal, others.onresumptiontoken),
          }),
    });
    // The POST failed: the SDK rejects the request itself. (An abandoned request's send never
    // settles; the session fetch forgets its tag, and the sweep its entry.)
    return sent.then(
      () => {
        if (tag !== undefined) requestSignals.forget(tag);
      },
      (error: unknown) => {
        this.#settle(id);
        if (tag !== undefined) requestSignals.forget(tag);
        throw error;
      },
    );
  }

  /** The `onresumptiontoken` of request `id`: notes its last event id with its signal. */
  #noteEvents(
    id: JsonRpcId,
    signal: AbortSignal,
    theirs: ((token: string) => void) | undefined,
  ): (token: string) => void {
    return (eventId) => {
      const { requestSignals } = this.#hooks;
      const previous = this.#lastEvents.get(id);
      if (previous !== undefined) requestSignals.forgetEvent(previous, signal);
      if (this.#waiting.has(id)) {
        this.#lastEvents.set(id, eventId);
        requestSignals.addEvent(eventId, signal);
      }
      theirs?.(eventId);
    };
  }

  /** Request `id` is answered or given up: forgets it. True when it was still waiting. */
  #settle(id: JsonRpcId): boolean {
    const eventId = this.#lastEvents.get(id);
    const signal = this.#waiting.get(id);
    if (eventId !== undefined) {
      this.#lastEvents.delete(id);
      if (signal !== undefined) this.#hooks.requestSignals.forgetEvent(eventId, signal);
    }
    return this.#waiting.delete(id);
  }

  /**
   * Forgets the requests whose own signal was aborted (cancelled, timed out) — except one whose
   * answer the SDK may still resume: its event id must keep naming it until the session fetch
   * abandons that GET (and forgets the id), else the GET would leave as nobody's. A later sweep
   * forgets it.
   */
  #forgetAborted(): void {
    const { requestSignals } = this.#hooks;
    for (const [id, signal] of this.#waiting) {
      if (signal?.aborted !== true) continue;
      const eventId = this.#lastEvents.get(id);
      if (eventId !== undefined && requestSignals.forEvent(eventId) === signal) continue;
      this.#settle(id);
    }
    this.#sweepAt = Math.max(FIRST_SWEEP_AT, this.#waiting.size * 2);
  }
}
