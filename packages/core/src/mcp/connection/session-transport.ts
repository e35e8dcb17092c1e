import {
  PROTOCOL_VERSION_META_KEY,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import type {
  JSONRPCMessage,
  StreamableHTTPClientTransportOptions,
} from '@modelcontextprotocol/client';
import type { JsonRpcId } from './scan-server-requests.ts';

/** The options the SDK transport's `send` takes. */
type SendOptions = Parameters<StreamableHTTPClientTransport['send']>[1];

/**
 * Once this many requests are waiting, the next request first forgets the ones the SDK aborted
 * (their streams end without a word: see {@link SessionTransport}). Doubles with what is left.
 */
const FIRST_SWEEP_AT = 64;

/** The first protocol revision whose requests are cancelled by closing their stream. */
const FIRST_MODERN_PROTOCOL_VERSION = '2026-07-28';

/**
 * The per-request signals of one session's requests in flight, by JSON-RPC id: how the session
 * fetch finds the signal of the request it is sending (see {@link SessionTransport}).
 */
export class RequestSignals {
  readonly #signals = new Map<JsonRpcId, AbortSignal>();
  /**
   * The last SSE event id seen on each request's answer (its resumption token) → the signal of
   * that request, or of each request that saw it when a server reused it across requests.
   */
  readonly #byEvent = new Map<string, AbortSignal | AbortSignal[]>();
  /** Requests whose signal aborts when their transport closes (see {@link closesWithTransport}). */
  readonly #closingWithTransport = new Set<JsonRpcId>();

  /**
   * Keeps `signal` as that of request `id`, until {@link forget} is called with the id.
   *
   * @param closesWithTransport The signal aborts when the transport closes (the transport made
   *   it): the session fetch then sends it to the network as it is, unlinked.
   */
  add(id: JsonRpcId, signal: AbortSignal, closesWithTransport = false): void {
    this.#signals.set(id, signal);
    if (closesWithTransport) this.#closingWithTransport.add(id);
  }

  /** True for a request whose signal was {@link add}ed as aborting when its transport closes. */
  closesWithTransport(id: JsonRpcId): boolean {
    return this.#closingWithTransport.has(id);
  }

  get(id: JsonRpcId): AbortSignal | undefined {
    return this.#signals.get(id);
  }

  /** Idempotent. */
  forget(id: JsonRpcId): void {
    this.#signals.delete(id);
    this.#closingWithTransport.delete(id);
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
 * The Streamable HTTP transport of one session: the SDK's, with these differences.
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
 * **A request's own signal is never combined with the transport's by the SDK.** Given a
 * request signal (`TransportSendOptions.requestSignal`, aborted to cancel the request by closing
 * its stream), the SDK combines it with its one long-lived signal through `AbortSignal.any`;
 * Node keeps a dependant reference on the long-lived source per call — for ever on Node 20
 * (measured: 20,000 calls → 20,000 references, about 70 bytes each), and on Node 22 until the
 * combined signal is collected, which undici's listener on it delays indefinitely. Here the SDK
 * is never handed a request signal, so it combines nothing; the session fetch finds the signal
 * by the request's JSON-RPC id instead, read off the body the SDK wrote (the id is its last
 * member: no parse, no header per request). A signal this transport made (below) already aborts when the transport closes and goes
 * to the network as it is; any other is linked to the transport's by the session fetch
 * (`linkSignals`, released when the answer is read). When the request signal aborts, the
 * session fetch abandons the request: the network request or its stream is closed (the server
 * sees the cancellation) and the SDK's read of it is left unanswered, so the SDK reports no
 * error and opens no resumption GET, as it does for an abort it knows as its own (the request
 * was already settled by the caller).
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
 * **A 2026-07-28 request's own signal is made here.** The transport reports
 * `hasPerRequestStream: false`, so the SDK makes no signal per request (it would make one
 * `AbortController` per request, which the session fetch then had to link to the transport's
 * with another, two listeners and all, on every call) and cancels by sending
 * `notifications/cancelled` instead. This transport gives each 2026-07-28 request (its `_meta`
 * names the protocol version) one `AbortController` of its own, aborted when the SDK sends
 * that notification for it — which is then not POSTed: on 2026-07-28 a closed stream is the
 * cancellation, as the SDK's own transport does it — and when the transport closes. That signal
 * goes to the network as it is. A request the SDK still hands a signal (`subscriptions/listen`)
 * keeps it, and its `notifications/cancelled` is sent as the SDK meant.
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
  /** The signals this transport made for its 2026-07-28 requests in flight, by request id. */
  readonly #own = new Map<JsonRpcId, AbortController>();
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
    // The SDK's field is typed `true`; see the class comment for why it is not.
    (this as { hasPerRequestStream: boolean }).hasPerRequestStream = false;
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
      return this.#cancelOwn(message) ? Promise.resolve() : super.send(message, options);
    }
    const id = message.id;
    if (this.#waiting.size >= this.#sweepAt) this.#forgetAborted();
    const { requestSignal: given, ...others } = options ?? {};
    let requestSignal = given;
    if (given === undefined && !isProbe(message.method, id) && isModernRequest(message)) {
      const own = new AbortController();
      this.#own.set(id, own);
      requestSignal = own.signal;
    }
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
    if (requestSignal !== undefined) requestSignals.add(id, requestSignal, requestSignal !== given);
    const sent = super.send(message, {
      ...others,
      onRequestStreamEnd,
      ...(requestSignal === undefined
        ? {}
        : { onresumptiontoken: this.#noteEvents(id, requestSignal, others.onresumptiontoken) }),
    });
    if (requestSignal === undefined) {
      return sent.catch((error: unknown) => {
        this.#settle(id);
        throw error;
      });
    }
    // The POST failed: the SDK rejects the request itself. (An abandoned request's send never
    // settles; the session fetch forgets its signal, and the sweep its entry.)
    return sent.then(
      () => requestSignals.forget(id),
      (error: unknown) => {
        this.#settle(id);
        requestSignals.forget(id);
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

  /**
   * Closes every request stream of this transport, as the SDK's `close` does for the requests it
   * gave a signal: the transport's own signal aborts first (in the SDK's `close`, before its
   * first `await`), so the session fetch sees a closed transport, not an abandoned request.
   */
  override close(): Promise<void> {
    const closing = super.close();
    for (const own of this.#own.values()) own.abort();
    this.#own.clear();
    return closing;
  }

  /**
   * A `notifications/cancelled` for a 2026-07-28 request of this transport's own signal: aborts
   * that signal (closing the request's stream, the revision's cancellation) and says so; the
   * notification is then not sent. False for any other message.
   */
  #cancelOwn(message: JSONRPCMessage): boolean {
    if (!('method' in message) || message.method !== 'notifications/cancelled') return false;
    const requestId = (message.params as { requestId?: JsonRpcId } | undefined)?.requestId;
    const own = requestId === undefined ? undefined : this.#own.get(requestId);
    if (own === undefined || requestId === undefined) return false;
    this.#own.delete(requestId);
    own.abort();
    return true;
  }

  /** Request `id` is answered or given up: forgets it. True when it was still waiting. */
  #settle(id: JsonRpcId): boolean {
    this.#own.delete(id);
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

/**
 * True for the SDK's version probe: a `server/discover` with a string id (`Protocol`'s ids are
 * numbers), sent while the SDK reads the transport's messages through handlers of its own, which
 * bypass this transport's `onmessage`. Its answer never settles it here, so it gets no signal of
 * the transport's own (one would be kept until the transport closes); the SDK never cancels it.
 */
function isProbe(method: string, id: JsonRpcId): boolean {
  return method === 'server/discover' && typeof id === 'string';
}

/** True for a request of the 2026-07-28 era or later (the version its `_meta` names). */
function isModernRequest(message: JSONRPCMessage): boolean {
  const params = (message as { params?: { _meta?: Record<string, unknown> } }).params;
  const version = params?._meta?.[PROTOCOL_VERSION_META_KEY];
  return typeof version === 'string' && version >= FIRST_MODERN_PROTOCOL_VERSION;
}
