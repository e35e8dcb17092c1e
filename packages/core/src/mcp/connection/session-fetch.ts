import { linkSignals } from '../../internal/linked-signal.ts';
import { hostOf, isBrowserOffline, throwIfOffline } from '../../internal/offline.ts';
import { isEventStream, unsettled, watchAnswerBody } from './answer-body.ts';
import { mayBeHandshake, requestIdOf, rpcRequestOf, type RpcRequest } from './rpc-body.ts';
import {
  watchResponseStart,
  type McpRequestWaiting,
  type RequestWaitingWatch,
} from './request-waiting.ts';
import type { RequestSignals } from './session-transport.ts';
import { StandaloneStreamGate } from './standalone-stream-gate.ts';
import type { TabStreamLead } from './tab-stream-lead.ts';
import { scanServerRequests, type JsonRpcId } from './scan-server-requests.ts';

/** The first protocol revision without server-to-client requests (the SDK does not export it). */
const FIRST_MODERN_PROTOCOL_VERSION = '2026-07-28';

/** What the session learnt from the answers to its handshake POSTs. */
export interface HandshakeRecord {
  /** Status of the last `initialize` or `server/discover` POST that was not 2xx. */
  failedStatus?: number;
  /** An `initialize` POST was answered 2xx. */
  initializeSucceeded: boolean;
  /** The 2xx `initialize` answer carried a readable `Mcp-Session-Id` header. */
  sessionIdReadable: boolean;
}

/** Options of {@link createSessionFetch}. */
export interface SessionFetchOptions {
  /** The fetch that reaches the network. */
  baseFetch: typeof fetch;
  /**
   * With OAuth: the fetch for the SDK's requests elsewhere than the MCP endpoint (discovery,
   * registration, token). Default `baseFetch`. An auth provider may wrap it to coordinate
   * refreshes (see `InteractiveOAuthProvider.coordinateTokenRequests`).
   */
  authFetch?: typeof fetch;
  /** Resolved caller headers, set on every request (the SDK's own headers win on a clash). */
  headers: Readonly<Record<string, string>>;
  /** Wraps `baseFetch`; it sees every request with the caller's headers applied. */
  middleware?: ((next: typeof fetch) => typeof fetch) | undefined;
  /**
   * Answer the standalone `GET` stream (a GET without `Last-Event-ID`) with a synthetic
   * `405 Method Not Allowed`, never touching the network. The v2 SDK has no option to skip that
   * GET, and treats 405 as "this server offers no stream".
   */
  blockStandaloneGet: boolean;
  /**
   * Streamable HTTP, 2025 era, in a browser: this tab's lead over the server's long-lived
   * streams. The standalone GET is then held on the network only while needed (see
   * `StandaloneStreamGate`). None: it stays open for the session's life.
   */
  tabLead?: TabStreamLead | undefined;
  /**
   * Reports POSTed requests that have had no response headers for a while (they may be queued
   * in the browser behind held connections). None: no clock.
   */
  requestWaiting?: RequestWaitingWatch | undefined;
  /**
   * Streamable HTTP through a `SessionTransport`: the signals of its requests, found by the
   * JSON-RPC id of the request a POST carries.
   */
  requestSignals?: RequestSignals | undefined;
  /** Streamable HTTP only: notes handshake answers into this record. */
  handshake?: HandshakeRecord;
  /**
   * Streamable HTTP only: called with each server request (a pushed `elicitation/create`) that
   * arrives on the SSE answer to a `tools/call` or `tasks/result` POST carrying our call key
   * (`_meta[CALL_ID_META_KEY]`), so the request can be routed to that call. Only 2025-era
   * requests are watched: the 2026-07-28 revision has no server-to-client requests.
   */
  onServerRequest?: (callKey: string, serverRequestId: JsonRpcId) => void;
  /**
   * Streamable HTTP with OAuth: the MCP endpoint. The transport's OAuth requests (metadata
   * discovery, registration, token) share this fetch; any request to another URL goes straight
   * to `baseFetch`, without the caller's headers or the middleware.
   */
  serverUrl?: URL;
  /**
   * Legacy SSE with OAuth: the server's origin. Requests to another origin, or to a
   * `/.well-known/` path, go straight to `baseFetch` (see `serverUrl`).
   */
  serverOrigin?: string;
}

/**
 * The fetch an HTTP transport of one session uses. From the transport inwards:
 * 0. throws `connection_refused` (`details.reason: 'offline'`) at once when the browser is
 *    offline (`navigator.onLine === false`): nothing is sent;
 * 1. watches handshake answers, and the SSE answers of 2025-era calls for server requests (see
 *    {@link SessionFetchOptions}; a lost answer is the transport's to notice, see
 *    `SessionTransport`);
 * 2. answers the standalone GET with a synthetic 405 when `blockStandaloneGet` is set, or with
 *    a local stream the {@link StandaloneStreamGate} feeds when `tabLead` is given;
 * 3. applies the caller's headers (every request: POST, GET, DELETE, legacy SSE GET and POSTs);
 * 4. runs the middleware, then the network fetch, under a signal linked to the SDK's and to the
 *    request's own (see `SessionTransport`); when the request's own aborts, the request is
 *    abandoned: closed on the network, and its promise or body left unsettled for the SDK.
 */
export function createSessionFetch(options: SessionFetchOptions): typeof fetch {
  const network = options.middleware ? options.middleware(options.baseFetch) : options.baseFetch;
  const { handshake, onServerRequest, requestSignals } = options;
  // Worked out once: the caller's headers do not change over a session's life.
  const callerHeaders = Object.entries(options.headers);
  /** Signals this fetch has been handed: one handed again is shared by many requests. */
  const seenSignals = new WeakSet<AbortSignal>();
  const gate =
    options.tabLead === undefined || options.blockStandaloneGet
      ? undefined
      : new StandaloneStreamGate(options.tabLead, network);

  return async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    if (!reachesServer(input, options)) {
      return (options.authFetch ?? options.baseFetch)(input, init);
    }
    // Offline, a request cannot leave the browser: fail at once (nothing sent, safe to retry)
    // instead of waiting for a time limit.
    // (The host is worked out only then: parsing the URL per request costs every call.)
    if (isBrowserOffline()) throwIfOffline(hostOf(input instanceof Request ? input.url : input));
    // The SDK builds a fresh `Headers` per request: the caller's headers are added to it in place
    // (a copy per request costs every call); anything else is read into a new one.
    const given = init?.headers;
    const headers = given instanceof Headers ? given : new Headers(given);
    const method = (init?.method ?? 'GET').toUpperCase();
    const requestId =
      requestSignals !== undefined && method === 'POST' ? requestIdOf(init?.body) : undefined;
    // A GET with an event id resumes a request's answer (and is that request's); one without is
    // the standalone stream.
    const resumedEvent = method === 'GET' ? headers.get('last-event-id') : null;
    const requestSignal =
      requestId !== undefined
        ? requestSignals?.get(requestId)
        : resumedEvent !== null
          ? requestSignals?.forEvent(resumedEvent)
          : undefined;
    if (options.blockStandaloneGet && method === 'GET' && resumedEvent === null) {
      return new Response(null, { status: 405, statusText: 'Method Not Allowed' });
    }
    for (const [name, value] of callerHeaders) {
      if (!headers.has(name)) headers.set(name, value);
    }
    if (gate !== undefined && method === 'GET' && !headers.has('last-event-id')) {
      const url = input instanceof Request ? input.url : String(input);
      return gate.answer(url, headers, init?.signal ?? undefined);
    }
    // The JSON-RPC message in a POST body is read only when something needs it (the gate, a
    // handshake answer, a 2025-era SSE answer, a request that waits): most calls never parse it
    // again.
    let parsed: RpcRequest | undefined | null = null;
    const requestOf = (): RpcRequest | undefined => {
      if (parsed === null) parsed = method === 'POST' ? rpcRequestOf(init?.body) : undefined;
      return parsed;
    };
    const request = gate !== undefined ? requestOf() : undefined;
    if (gate !== undefined && request?.uri !== undefined && request.method !== undefined) {
      gate.noteSubscription(request.method, request.uri);
    }
    // A request in flight keeps the gated GET stream open: the server may push on it.
    const settled =
      gate !== undefined && request?.method !== undefined && request.id !== undefined
        ? gate.noteRequest()
        : undefined;
    const headersArrived =
      options.requestWaiting !== undefined && method === 'POST'
        ? watchResponseStart(options.requestWaiting, () => waitingRequestOf(requestOf(), input))
        : undefined;
    // The SDK hands 2025-era requests the transport's one long-lived signal, and undici keeps an
    // `abort` listener on it per request until that request is garbage-collected (thousands of
    // calls → MaxListenersExceededWarning). A signal this fetch has seen before is such a shared
    // one: the request then gets its own linked signal, released when its body has been read (or
    // cancelled). A signal seen for the first time (2026-07-28: the SDK's per-request signal)
    // carries that one listener only, and goes to the network as it is. A 2026-07-28 request
    // through a `SessionTransport` comes with the transport's shared signal and its own apart:
    // its own, made by the transport, closes with the transport and goes out alone; one the SDK
    // made (`subscriptions/listen`) is linked to the shared one, released the same way.
    const outer = init?.signal ?? undefined;
    const shared = outer !== undefined && seenSignals.has(outer);
    if (outer !== undefined) seenSignals.add(outer);
    // Cancelled, not closed: the caller has settled the request already (`SessionTransport`).
    // Once it is, its signal and event ids are forgotten too: the SDK's send that would forget them
    // never returns, and no GET resumes an abandoned answer.
    const abandoned =
      requestSignal === undefined
        ? undefined
        : (): boolean => {
            if (!requestSignal.aborted || outer?.aborted === true) return false;
            if (requestId !== undefined) requestSignals?.forget(requestId);
            requestSignals?.forgetSignal(requestSignal);
            return true;
          };
    if (abandoned?.() === true) {
      settled?.();
      headersArrived?.();
      return unsettled();
    }
    // A signal the transport made closes with the transport already: it goes out as it is.
    const ownSignal =
      requestId !== undefined && requestSignals?.closesWithTransport(requestId) === true;
    const link =
      !ownSignal && (shared || requestSignal !== undefined)
        ? linkSignals(outer, requestSignal)
        : undefined;
    const signal = ownSignal ? requestSignal : link === undefined ? outer : link.signal;
    const release =
      link === undefined
        ? settled
        : settled === undefined
          ? link.dispose
          : () => {
              link.dispose();
              settled();
            };
    let answer: Response;
    try {
      // The SDK's own `init` goes on as it is when nothing in it changed (no copy per request).
      answer = await network(
        input,
        init !== undefined && headers === given && signal === outer
          ? init
          : { ...init, headers, ...(signal === undefined ? {} : { signal }) },
      );
    } catch (error) {
      release?.();
      if (abandoned?.() === true) return unsettled();
      throw error;
    } finally {
      headersArrived?.();
    }
    if (handshake !== undefined && method === 'POST' && mayBeHandshake(init?.body)) {
      const handshakeMethod = requestOf()?.method;
      if (handshakeMethod === 'initialize' || handshakeMethod === 'server/discover') {
        if (!answer.ok) handshake.failedStatus = answer.status;
        else if (handshakeMethod === 'initialize') {
          handshake.initializeSucceeded = true;
          handshake.sessionIdReadable = answer.headers.get('mcp-session-id') !== null;
        }
      }
    }
    const onChunk =
      onServerRequest !== undefined && method === 'POST'
        ? serverRequestScan(answer, headers, requestOf, onServerRequest)
        : undefined;
    return release === undefined && onChunk === undefined && abandoned === undefined
      ? answer
      : watchAnswerBody(answer, { release, abandoned, onChunk });
  };
}

/**
 * The scan of a 2025-era `tools/call` or `tasks/result` SSE answer that carries our call key:
 * each server request on it is reported with that key (see `SessionFetchOptions.onServerRequest`).
 * Undefined for any other answer.
 */
function serverRequestScan(
  answer: Response,
  headers: Headers,
  requestOf: () => RpcRequest | undefined,
  onServerRequest: (callKey: string, serverRequestId: JsonRpcId) => void,
): ((bytes: Uint8Array) => void) | undefined {
  if (isModernEra(headers) || !answer.ok || answer.body === null || !isEventStream(answer)) {
    return undefined;
  }
  const answered = requestOf();
  const callKey = answered?.callKey;
  if (
    answered?.id === undefined ||
    callKey === undefined ||
    (answered.method !== 'tools/call' && answered.method !== 'tasks/result')
  ) {
    return undefined;
  }
  return scanServerRequests((serverRequestId) => onServerRequest(callKey, serverRequestId));
}

/** False for a request the SDK's OAuth code makes elsewhere than the MCP endpoint. */
function reachesServer(input: RequestInfo | URL, options: SessionFetchOptions): boolean {
  const { serverUrl, serverOrigin } = options;
  if (serverUrl === undefined && serverOrigin === undefined) return true;
  // The SDK passes its endpoint as a `URL`: read it as it is (no string round trip per request).
  if (input === serverUrl) return true;
  let target: URL;
  try {
    target = input instanceof URL ? input : new URL(input instanceof Request ? input.url : input);
  } catch {
    return true;
  }
  if (serverUrl !== undefined) {
    return target.origin === serverUrl.origin && target.pathname === serverUrl.pathname;
  }
  return target.origin === serverOrigin && !target.pathname.startsWith('/.well-known/');
}

/**
 * True for a request of the 2026-07-28 era or later (its `MCP-Protocol-Version` header; protocol
 * versions are dates, so they compare as strings). Such a session has no server-to-client requests.
 */
function isModernEra(headers: Headers): boolean {
  const version = headers.get('mcp-protocol-version');
  return version !== null && version >= FIRST_MODERN_PROTOCOL_VERSION;
}

/**
 * The waiting notice of a POSTed request: undefined for a message nobody waits on (a
 * notification, a response) and for a background stream (2026-07-28 `subscriptions/listen`).
 */
function waitingRequestOf(
  request: RpcRequest | undefined,
  input: RequestInfo | URL,
): Omit<McpRequestWaiting, 'since'> | undefined {
  if (request?.method === undefined || request.id === undefined) return undefined;
  if (request.method === 'subscriptions/listen') return undefined;
  return {
    method: request.method,
    ...(request.callKey === undefined ? {} : { callId: callIdOf(request.callKey) }),
    host: hostOf(input instanceof Request ? input.url : input),
  };
}

/** The model's call id in a call key (`<callId>#<n>`, see `callMcpTool`). */
function callIdOf(callKey: string): string {
  const cut = callKey.lastIndexOf('#');
  return cut < 0 ? callKey : callKey.slice(0, cut);
}
