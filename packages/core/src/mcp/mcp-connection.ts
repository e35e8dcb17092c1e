import {
  StreamableHTTPClientTransport,
  type Client,
  type DiscoverResult,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type PriorDiscovery,
  type Transport,
} from '@modelcontextprotocol/client';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import { SecretScrubber } from '../internal/secret-scrubber.ts';
import { headerSetKey } from './connection/header-set-key.ts';
import { McpSession, type SessionTransportKind } from './connection/mcp-session.ts';
import { SessionPool, type SessionLease } from './connection/session-pool.ts';
import type { HandshakeRecord } from './connection/session-fetch.ts';
import { describeServer, toMcpError } from './to-mcp-error.ts';

/**
 * HTTP headers for every request to an MCP server: fixed, or computed per run from the run
 * context (e.g. a per-user token). Values never appear in errors, logs or cache keys.
 */
export type McpHeaders =
  | Record<string, string>
  | ((runContext: unknown) => Record<string, string> | Promise<Record<string, string>>);

/** Which HTTP transport to use. `auto`: Streamable HTTP, falling back to legacy SSE. */
export type McpTransportKind = 'auto' | 'streamable-http' | 'sse';

/** What the connection learnt about the server; kept so a reconnect does not probe again. */
export interface McpConnectionInfo {
  /** `streamable-http`, `sse` or `custom` (a caller-made transport such as stdio). */
  transport: 'streamable-http' | 'sse' | 'custom';
  protocolEra?: 'modern' | 'legacy';
  protocolVersion?: string;
  serverInfo?: { name: string; version: string };
  /** The server's `server/discover` result (modern era), for a zero-round-trip reconnect. */
  discover?: unknown;
  /** Server instructions from `initialize` (legacy era) or discover. */
  instructions?: string;
}

/** Options of {@link McpConnection}; see `McpServerOptions` for the user-facing meaning. */
export interface McpConnectionOptions {
  /** Used in error messages (with the URL's origin and path, never its query). */
  name: string;
  /**
   * The endpoint: Streamable HTTP, or for `sse` the event stream URL. In `auto` mode the legacy
   * SSE fallback uses this same URL.
   */
  url?: URL;
  transport: McpTransportKind;
  headers?: McpHeaders;
  /** The fetch that reaches the network. Default: the global `fetch` at call time. */
  fetch?: typeof fetch;
  /**
   * Do not open the standalone GET stream (2025 era). The v2 SDK has no switch for it, so the
   * GET is answered locally with a synthetic 405 (which the SDK reads as "no stream"); it never
   * reaches the network. Default false.
   */
  disableStandaloneSse?: boolean;
  /** Client capabilities to declare (elicitation form/url, …). */
  capabilities: Record<string, unknown>;
  /** Called with each new `Client` before it connects: register request/notification handlers. */
  setupClient(client: Client): void;
  /**
   * Wraps the fetch used by HTTP transports (after headers are applied). Called once per session,
   * with that session's `Client` (the one `setupClient` got), so what it learns from the traffic
   * can be told apart per session.
   */
  fetchMiddleware?: (next: typeof fetch, client: Client) => typeof fetch;
  /** What a previous connection learnt (e.g. from the schema cache): skips the era probe. */
  prior?: Pick<McpConnectionInfo, 'protocolEra' | 'discover' | 'transport'>;
  /** Makes the transport for a non-HTTP server (stdio). `url` is then unused. */
  createTransport?: () => Transport;
  /**
   * OAuth 2.1 for HTTP transports (see `McpServerOptions.authProvider`): handed to the SDK
   * transport, which sends its token, discovers, registers, refreshes and starts authorization.
   * Its OAuth requests bypass `headers` and `fetchMiddleware` (they go to `fetch` directly).
   */
  authProvider?: OAuthClientProvider;
  /**
   * The fetch for the SDK's OAuth requests (discovery, registration, token). Default: `fetch`.
   * Set from the provider's `coordinateTokenRequests` when it has one (refresh single-flight).
   */
  authFetch?: typeof fetch;
  /**
   * Timeout of the connect handshake (probe, `initialize`) and bound of the `DELETE` on close,
   * in ms. Default 60 000. Operations set their own request timeouts.
   */
  timeoutMs?: number;
}

/** Where an {@link McpConnection} stands, as of its last connect attempt. */
export type McpConnectionStatus = 'idle' | 'connecting' | 'connected' | 'error' | 'closed';

/** Options of {@link McpConnection.finishAuthorization}. */
export interface McpFinishAuthorizationOptions {
  /** The callback's `iss` parameter (RFC 9207), when the code is passed as a string. */
  iss?: string;
  /** Aborting rejects at once with `aborted` (the token request may still complete). */
  signal?: AbortSignal;
}

/** Options of {@link McpConnection.use}. */
export interface McpUseOptions {
  /** Aborting rejects `use` at once with `aborted` (a shared connect goes on for others). */
  signal?: AbortSignal;
  /**
   * The operation needs the server's pushed requests to be its own (a tool call that may be
   * asked for input). Over legacy HTTP+SSE, where every server request of a session arrives on
   * one stream with nothing linking it to a call, the operation then gets a session no other
   * exclusive operation is using (another session for the same headers is opened when needed),
   * so whatever the server asks on it belongs to this operation. Other transports carry each
   * request's server requests on that request's own stream and share one session. Default false.
   */
  exclusive?: boolean;
}

/**
 * `{ authFetch }` when the provider coordinates its token requests (refresh single-flight across
 * requests and tabs; `InteractiveOAuthProvider.coordinateTokenRequests`), else nothing. Made once
 * per connection so every session shares it.
 */
function coordinatedAuthFetch(
  provider: OAuthClientProvider,
  options: McpConnectionOptions,
): { authFetch?: typeof fetch } {
  const coordinate = (provider as { coordinateTokenRequests?: unknown }).coordinateTokenRequests;
  if (typeof coordinate !== 'function') return {};
  const base: typeof fetch =
    options.authFetch ?? options.fetch ?? ((input, init) => fetch(input, init));
  return { authFetch: (coordinate as (next: typeof fetch) => typeof fetch).call(provider, base) };
}

/**
 * @throws SwitchboardError `invalid_response` when the authorization server's metadata does not
 *   list `S256` in `code_challenge_methods_supported` (absent counts as not supported).
 */
function refuseWithoutPkce(state: OAuthDiscoveryState, where: string): void {
  const metadata = state.authorizationServerMetadata as
    { issuer?: unknown; code_challenge_methods_supported?: unknown } | undefined;
  if (metadata === undefined) return; // nothing discovered: the SDK's defaults apply
  const methods = metadata.code_challenge_methods_supported;
  if (Array.isArray(methods) && methods.includes('S256')) return;
  const issuer =
    typeof metadata.issuer === 'string' ? metadata.issuer : state.authorizationServerUrl;
  throw new SwitchboardError(
    'invalid_response',
    `${where}: its authorization server ${issuer} does not support PKCE with S256 (code_challenge_methods_supported), which MCP authorization requires; the sign-in was refused.`,
    { details: { issuer } },
  );
}

/** Default of {@link McpConnectionOptions.timeoutMs}, in ms. */
const DEFAULT_TIMEOUT_MS = 60_000;
/**
 * Most idle sessions kept open (across header sets); beyond it the least recently used idle one
 * is ended. Sessions in use are never ended for this, however many users there are at once.
 */
const MAX_IDLE_SESSIONS = 16;
/** Statuses of an `initialize`/`server/discover` POST after which `auto` tries legacy SSE. */
const FALLBACK_STATUSES: readonly number[] = [400, 404, 405];
const EXPOSE_SESSION_ID_HINT =
  'The server requires a session, but no Mcp-Session-Id header could be read from its ' +
  'initialize response. In a browser the server must send ' +
  '`Access-Control-Expose-Headers: Mcp-Session-Id` on that response (not only on the preflight).';

type RetryReason = 'session-expired' | 'stale-prior';

/**
 * The connection layer of the MCP client: one server, any transport, both protocol eras, one
 * session per distinct header set. `McpServer` builds on it; use it directly for raw access to
 * the `@modelcontextprotocol/client` `Client`.
 *
 * Transports (`options.transport`, DESIGN.md §3):
 * - `streamable-http`: `StreamableHTTPClientTransport` on `url`.
 * - `sse`: the legacy HTTP+SSE transport (2024-11-05) on `url` (the event stream URL, e.g.
 *   `/sse`); its session is always in the 2025 era, so no `server/discover` probe is sent.
 * - `auto`: Streamable HTTP first; only when the `initialize`/`server/discover` POST is answered
 *   400, 404 or 405 does it try legacy SSE — **on the same URL** (servers that serve both at one
 *   path, or a URL that already is the SSE endpoint). What worked is remembered in
 *   {@link McpConnection.info} and used directly for later sessions.
 * - `createTransport` (stdio and other custom transports) bypasses HTTP entirely.
 *
 * Eras: each `Client` uses `versionNegotiation: { mode: 'auto' }` (2026-07-28 via
 * `server/discover`, else `initialize`). After the first connect the verdict (and the discover
 * result) is kept, and every later connect — after a 404, or for another header set — passes it
 * as `prior`, so no probe is sent again. `options.prior` seeds this on the very first connect.
 * When a connect from a prior verdict fails because the server changed (HTTP 400 or an
 * unsupported version, at connect or on the first operation), the verdict is dropped and the
 * server probed once more.
 *
 * Headers (static or computed from the run context) go on every HTTP request: POST, the
 * standalone GET stream, DELETE, the legacy SSE GET and its POSTs. `fetchMiddleware` wraps the
 * network fetch and sees them applied. Their values never appear in errors, and only a SHA-256
 * of names and values tells sessions apart.
 *
 * Load: any number of header sets may be in use at once. Sessions are leased
 * (`connection/session-pool.ts`): none is ended while an operation uses or awaits it; of the
 * idle ones the 16 most recently used are kept, the others ended.
 *
 * Robustness: an expired session (HTTP 404 while a session id was in use) is dropped, a new one
 * opened and the operation retried once; the standalone GET stream is optional (404/405/406
 * mean POST-only; `disableStandaloneSse` answers it with a local 405 so it never reaches the
 * network); an SSE answer that breaks before its response fails that request at once with
 * `connection_lost` instead of waiting for the timeout. Errors are `SwitchboardError`s with a
 * code per failure class (see `toMcpError`), with CORS hints when running in a browser.
 */
export class McpConnection {
  /**
   * The secret values this connection sent (caller headers, OAuth `Authorization`), recorded as
   * each request goes out: scrubs them from server text (errors here; results and messages in
   * the layers above).
   */
  readonly scrubber = new SecretScrubber();
  readonly #options: McpConnectionOptions;
  readonly #where: string;
  readonly #timeoutMs: number;
  readonly #pool: SessionPool;
  /** Every connected session not yet disposed, including retired ones still draining. */
  readonly #openSessions = new Set<McpSession>();
  readonly #localKeys = new Map<string, string>();
  readonly #listeners = new Set<() => void>();
  /**
   * One per connect in flight, each aborted by {@link close} (fails it at once). One controller
   * per connect, not one shared signal: many users connecting at once would otherwise pile
   * listeners on a single signal.
   */
  readonly #connectsInFlight = new Set<AbortController>();
  #info: McpConnectionInfo | undefined;
  #status: McpConnectionStatus = 'idle';
  #error: SwitchboardError | undefined;
  #priorDropped = false;
  /** Settles when the connect that is probing the server finishes (either way). */
  #discovering: Promise<void> | undefined;
  #closed = false;
  #closing: Promise<void> | undefined;
  /** The URL the auth provider was last sent to (`redirectToAuthorization`), until finished. */
  #authorizationUrl: URL | undefined;
  /** The transport whose request needed authorization: `finishAuth` completes it. */
  #authTransport: Transport | undefined;

  /**
   * @param options See {@link McpConnectionOptions}. Nothing connects until {@link use}.
   * @throws SwitchboardError `invalid_input` without `url` and without `createTransport`, or
   *   with a `timeoutMs` that is not a positive number.
   */
  constructor(options: McpConnectionOptions) {
    if (options.url === undefined && options.createTransport === undefined) {
      throw new SwitchboardError(
        'invalid_input',
        `MCP server "${options.name}" needs a url or a createTransport.`,
      );
    }
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!(timeoutMs > 0)) {
      throw new SwitchboardError(
        'invalid_input',
        `MCP server "${options.name}": timeoutMs must be a positive number of milliseconds.`,
      );
    }
    const provider = options.authProvider;
    const fetchMiddleware = recordSecrets(this.scrubber, options.fetchMiddleware);
    this.#options =
      provider === undefined
        ? { ...options, fetchMiddleware }
        : {
            ...options,
            fetchMiddleware,
            authProvider: this.#recordRedirects(provider),
            ...coordinatedAuthFetch(provider, options),
          };
    this.#timeoutMs = timeoutMs;
    this.#pool = new SessionPool({
      open: (key, headers) => this.#connect(key, headers),
      maxIdle: MAX_IDLE_SESSIONS,
      endSessionMs: timeoutMs,
    });
    this.#where =
      options.createTransport === undefined && options.url !== undefined
        ? describeServer(options.name, options.url)
        : `MCP server "${options.name}"`;
  }

  /**
   * What is known about the server: transport, era, version, `serverInfo`, discover result,
   * instructions. `undefined` until the first connect succeeds. The object is replaced (never
   * mutated) when something changes, so it can serve as a `useSyncExternalStore` snapshot.
   */
  get info(): McpConnectionInfo | undefined {
    return this.#info;
  }

  /**
   * The authorization URL the SDK asked the user to visit (via the provider's
   * `redirectToAuthorization`), until {@link finishAuthorization} completes it. It carries
   * `state` and the PKCE challenge, never a token.
   */
  get pendingAuthorizationUrl(): URL | undefined {
    return this.#authorizationUrl;
  }

  /**
   * Forgets the pending authorization (its `state` or code was used, or refused): the next
   * connect that meets a 401 starts a new one.
   */
  dropPendingAuthorization(): void {
    this.#authorizationUrl = undefined;
    this.#authTransport = undefined;
  }

  /** Where the connection stands, as of its last connect attempt (or `closed`). */
  get status(): McpConnectionStatus {
    return this.#status;
  }

  /** Why the last connect failed, while {@link status} is `error`. */
  get error(): SwitchboardError | undefined {
    return this.#error;
  }

  /**
   * Subscribes to changes of {@link info}, {@link status} and {@link error}.
   *
   * @returns A function that unsubscribes.
   */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /**
   * Runs `operation` with a connected `Client` for the headers of `runContext`. Connects lazily,
   * single-flight per distinct header set: another header set (e.g. another user's token) gets
   * its own connection and session, keyed by a SHA-256 of the header names and values. The
   * operation holds its session from before it is connected until it settles: a session is never
   * ended while in use, however many header sets are in use at once; only idle sessions beyond
   * 16 are ended (least recently used first, with a DELETE). With `exclusive` over legacy
   * HTTP+SSE the operation gets a session of its own (see {@link McpUseOptions.exclusive}).
   *
   * When the operation fails with HTTP 404 while a session id was in use (the session expired),
   * that session is dropped, a new one connected (from the known era, without a probe) and the
   * operation retried once; a second 404 is an `http_status` error. The operation must
   * therefore be safe to run again after a 404 (the server did not process the request).
   *
   * @param runContext Passed to a `headers` function; otherwise unused.
   * @param operation Gets the connected client; pass `signal` and a timeout to its requests.
   * @param options `signal`: rejects at once with `aborted`.
   * @returns What `operation` returns.
   * @throws SwitchboardError `connection_refused`, `connection_lost`, `http_status` (with
   *   `details.status`), `unsupported_protocol_version`, `invalid_response`, `timeout` (connect
   *   exceeded `timeoutMs`, or the operation's own timeout), `aborted`, `mcp_error` (a JSON-RPC
   *   error), `connection_closed` (after {@link close}), `invalid_input` (bad headers, or the
   *   headers function threw).
   */
  async use<T>(
    runContext: unknown,
    operation: (client: Client) => Promise<T>,
    options: McpUseOptions = {},
  ): Promise<T> {
    const { signal } = options;
    this.#throwIfClosed();
    if (signal?.aborted === true) throw this.#classify(signal.reason, undefined, signal);
    const headers = await this.#withSignal(this.#resolveHeaders(runContext), signal);
    const key = await headerSetKey(headers, this.#localKeys);
    const exclusive = options.exclusive === true;
    let lease = await this.#lease(key, headers, exclusive, signal);
    let retryReason: RetryReason | undefined;
    try {
      return await this.#attempt(lease.session, operation, signal);
    } catch (error) {
      retryReason = this.#retryReason(lease.session, error, signal);
      if (retryReason === undefined) throw error;
      this.#pool.discard(lease.session);
    } finally {
      lease.release();
    }
    if (retryReason === 'stale-prior') this.#dropPrior();
    lease = await this.#lease(key, headers, exclusive, signal);
    try {
      return await this.#attempt(lease.session, operation, signal);
    } catch (error) {
      if (
        retryReason === 'session-expired' &&
        this.#retryReason(lease.session, error, signal) === 'session-expired'
      ) {
        this.#pool.discard(lease.session);
        throw new SwitchboardError(
          'http_status',
          `${this.#where} answered HTTP 404 (session not found) again right after a new session was opened.`,
          { cause: error, details: { status: 404 } },
        );
      }
      throw error;
    } finally {
      lease.release();
    }
  }

  /**
   * Completes an OAuth authorization that a `needs_auth` failure started: the SDK transport's
   * `finishAuth` validates `iss` (RFC 9207) and exchanges the code for tokens, which the auth
   * provider saves. Check `state` before calling (the SDK does not). The next {@link use}
   * connects with the new token. Works after a page reload too (redirect flow): a fresh
   * transport finishes from the provider's persisted discovery state and code verifier.
   *
   * @param callback The callback URL's `searchParams` (preferred: `code` and `iss` are read
   *   from it), or the bare authorization `code`.
   * @throws SwitchboardError `invalid_input` (no `authProvider`, or not an HTTP server),
   *   `needs_auth` (the exchange did not authorize), `http_status`, `connection_refused`,
   *   `aborted`, or `mcp_error` (e.g. an `iss` mismatch); messages never contain the code or a
   *   token.
   */
  async finishAuthorization(
    callback: string | URLSearchParams,
    options: McpFinishAuthorizationOptions = {},
  ): Promise<void> {
    this.#throwIfClosed();
    const provider = this.#options.authProvider;
    if (provider === undefined) {
      throw new SwitchboardError('invalid_input', `${this.#where} has no authProvider.`);
    }
    // After a redirect round trip (a page reload) the transport that asked is gone: a fresh one
    // finishes from the provider's persisted discovery state and code verifier.
    const transport = this.#authTransport ?? this.#finishingTransport(provider);
    const finishing = transport as Transport & {
      finishAuth?: (callback: string | URLSearchParams, iss?: string) => Promise<void>;
    };
    if (typeof finishing.finishAuth !== 'function') {
      throw new SwitchboardError('invalid_input', `${this.#where}: its transport has no OAuth.`);
    }
    const { signal } = options;
    try {
      const pending =
        typeof callback === 'string'
          ? finishing.finishAuth(callback, options.iss)
          : finishing.finishAuth(callback);
      await this.#withSignal(pending, signal);
    } catch (error) {
      throw this.#classify(error, undefined, signal);
    }
    if (this.#authTransport === transport) this.#authTransport = undefined;
    this.#authorizationUrl = undefined;
  }

  /**
   * Ends every session and closes every client: Streamable HTTP sessions with an HTTP `DELETE`
   * (405 and 404 tolerated; best effort, each bounded by `timeoutMs`), custom transports by
   * closing them (a stdio child process is ended). Connects still in flight are cut off (they
   * fail with `connection_closed`). After
   * `close`, {@link use} rejects with `connection_closed`. Idempotent: later calls return the
   * same promise. Never rejects.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#closed = true;
      const reason = new SwitchboardError(
        'connection_closed',
        `The connection to ${this.#where} was closed.`,
      );
      for (const connect of this.#connectsInFlight) connect.abort(reason);
      await Promise.allSettled(this.#pool.clear());
      await Promise.all(
        [...this.#openSessions].map((session) => session.terminate(this.#timeoutMs)),
      );
      this.#update({ status: 'closed', error: undefined });
    })();
    return this.#closing;
  }

  async #attempt<T>(
    session: McpSession,
    operation: (client: Client) => Promise<T>,
    signal: AbortSignal | undefined,
  ): Promise<T> {
    try {
      const result = await session.run(operation, signal);
      session.succeeded = true;
      return result;
    } catch (error) {
      this.#throwIfClosed();
      const classified = this.#classify(error, session.handshake, signal);
      if (classified.code === 'needs_auth') this.#authTransport = session.transport;
      throw classified;
    }
  }

  /** Why a failed operation may be retried once on a new session, if it may. */
  #retryReason(
    session: McpSession,
    error: unknown,
    signal: AbortSignal | undefined,
  ): RetryReason | undefined {
    if (this.#closed || signal?.aborted === true || !(error instanceof SwitchboardError)) {
      return undefined;
    }
    const status = error.code === 'http_status' ? error.details?.status : undefined;
    if (status === 404 && session.hadSessionId) return 'session-expired';
    if (
      session.usedPrior &&
      !session.succeeded &&
      (error.code === 'unsupported_protocol_version' || status === 400)
    ) {
      return 'stale-prior';
    }
    return undefined;
  }

  /**
   * A lease on a session for `key` (pooled, or a new single-flight connect), held until the
   * operation settles. When `signal` aborts first, the lease still being acquired is released
   * as soon as it arrives.
   */
  async #lease(
    key: string,
    headers: Record<string, string>,
    exclusive: boolean,
    signal: AbortSignal | undefined,
  ): Promise<SessionLease> {
    const acquiring = this.#pool
      .acquire(key, headers, {
        exclusive,
        sharedStream: () => this.#transportKind() === 'sse',
      })
      .then((lease) => {
        if (this.#closed) {
          lease.release();
          void lease.session.terminate(this.#timeoutMs);
          this.#throwIfClosed();
        }
        return lease;
      });
    try {
      return await this.#withSignal(acquiring, signal);
    } catch (error) {
      void acquiring.then(
        (lease) => lease.release(),
        () => undefined,
      );
      throw error;
    }
  }

  async #connect(key: string, headers: Record<string, string>): Promise<McpSession> {
    if (this.#status !== 'connected') this.#update({ status: 'connecting' });
    try {
      // One discovery at a time: a connect that would probe (era or transport unknown) waits
      // for one already probing, then reuses its verdict (or probes itself if that failed).
      while (this.#discovering !== undefined && this.#needsDiscovery()) {
        await this.#discovering;
      }
      const discovering = this.#needsDiscovery();
      const kind = this.#transportKind();
      const opening = (
        kind === 'auto'
          ? this.#connectAuto(key, headers)
          : this.#connectProbingIfStale(kind, key, headers)
      ).then((session) => {
        this.#learn(session);
        return session;
      });
      if (discovering) {
        const settled = opening.then(
          () => undefined,
          () => undefined,
        );
        this.#discovering = settled;
        void settled.then(() => {
          if (this.#discovering === settled) this.#discovering = undefined;
        });
      }
      const session = await opening;
      this.#update({ status: 'connected', error: undefined });
      return session;
    } catch (error) {
      const classified = this.#classify(error, undefined, undefined);
      if (!this.#closed) this.#update({ status: 'error', error: classified });
      throw classified;
    }
  }

  /** Streamable HTTP, then legacy SSE on the same URL when the handshake got 400/404/405. */
  async #connectAuto(key: string, headers: Record<string, string>): Promise<McpSession> {
    const handshake: HandshakeRecord = { initializeSucceeded: false, sessionIdReadable: false };
    try {
      return await this.#connectProbingIfStale('streamable-http', key, headers, handshake);
    } catch (error) {
      const status =
        error instanceof SwitchboardError && error.code === 'http_status'
          ? error.details?.status
          : undefined;
      if (
        typeof status !== 'number' ||
        !FALLBACK_STATUSES.includes(status) ||
        handshake.failedStatus !== status
      ) {
        throw error;
      }
      try {
        return await this.#open('sse', key, headers, { kind: 'legacy' });
      } catch (sseError) {
        const original = error as SwitchboardError;
        const reason = sseError instanceof Error ? sseError.message : String(sseError);
        throw new SwitchboardError(
          original.code,
          `${original.message} (The legacy HTTP+SSE fallback on the same URL failed too: ${reason})`,
          { cause: original, ...(original.details ? { details: { ...original.details } } : {}) },
        );
      }
    }
  }

  /** Connects from the known era verdict; if the server changed since, probes once more. */
  async #connectProbingIfStale(
    kind: SessionTransportKind,
    key: string,
    headers: Record<string, string>,
    handshake?: HandshakeRecord,
  ): Promise<McpSession> {
    const prior = this.#eraPrior(kind);
    try {
      return await this.#open(kind, key, headers, prior, handshake);
    } catch (error) {
      if (prior === undefined || kind === 'sse' || !isServerChangedError(error)) throw error;
      this.#dropPrior();
      return await this.#open(kind, key, headers, undefined, handshake);
    }
  }

  /** Opens one session; failures come back classified. */
  async #open(
    kind: SessionTransportKind,
    key: string,
    headers: Record<string, string>,
    prior: PriorDiscovery | undefined,
    handshake: HandshakeRecord = { initializeSucceeded: false, sessionIdReadable: false },
  ): Promise<McpSession> {
    handshake.initializeSucceeded = false;
    handshake.sessionIdReadable = false;
    delete handshake.failedStatus;
    const connect = new AbortController();
    this.#connectsInFlight.add(connect);
    try {
      this.#throwIfClosed();
      const session = await McpSession.open({
        kind,
        key,
        headers,
        prior,
        connection: this.#options,
        where: this.#where,
        timeoutMs: this.#timeoutMs,
        handshake,
        onLost: (session) => this.#pool.discard(session),
        signal: connect.signal,
        onDisposed: (disposed) => this.#openSessions.delete(disposed),
        onUnauthorized: (transport) => {
          this.#authTransport = transport;
        },
      });
      this.#openSessions.add(session);
      return session;
    } catch (error) {
      this.#throwIfClosed();
      throw this.#classify(error, handshake, undefined);
    } finally {
      this.#connectsInFlight.delete(connect);
    }
  }

  /** True when the next connect would probe: the transport (auto) or the era is unknown. */
  #needsDiscovery(): boolean {
    const kind = this.#transportKind();
    return kind === 'auto' || this.#eraPrior(kind) === undefined;
  }

  /** Which transport to use next: custom, what worked before (auto only), or the option. */
  #transportKind(): SessionTransportKind | 'auto' {
    if (this.#options.createTransport !== undefined) return 'custom';
    if (this.#options.transport !== 'auto') return this.#options.transport;
    const learned = this.#info?.transport ?? this.#priorOption()?.transport;
    return learned === 'streamable-http' || learned === 'sse' ? learned : 'auto';
  }

  /** The era verdict for the next connect, if one is known. */
  #eraPrior(kind: SessionTransportKind): PriorDiscovery | undefined {
    if (kind === 'sse') return { kind: 'legacy' };
    const known = this.#info ?? this.#priorOption();
    if (known?.protocolEra === 'legacy') return { kind: 'legacy' };
    if (known?.protocolEra === 'modern' && isDiscoverResult(known.discover)) {
      return { kind: 'modern', discover: known.discover };
    }
    return undefined;
  }

  #priorOption(): McpConnectionOptions['prior'] {
    return this.#priorDropped ? undefined : this.#options.prior;
  }

  /** Forgets the era verdict (the server changed): the next connect probes again. */
  #dropPrior(): void {
    this.#priorDropped = true;
    if (this.#info !== undefined) this.#update({ info: undefined });
  }

  /** Records what a successful connect showed. */
  #learn(session: McpSession): void {
    const client = session.client;
    const era = client.getProtocolEra();
    const version = client.getNegotiatedProtocolVersion();
    const server = client.getServerVersion();
    const discover = client.getDiscoverResult();
    const instructions = client.getInstructions() ?? discover?.instructions;
    const next: McpConnectionInfo = {
      transport: session.kind,
      ...(era !== undefined ? { protocolEra: era } : {}),
      ...(version !== undefined ? { protocolVersion: version } : {}),
      ...(server !== undefined
        ? { serverInfo: { name: server.name, version: server.version } }
        : {}),
      ...(discover !== undefined ? { discover } : {}),
      ...(instructions !== undefined ? { instructions } : {}),
    };
    if (JSON.stringify(next) !== JSON.stringify(this.#info)) this.#update({ info: next });
  }

  async #resolveHeaders(runContext: unknown): Promise<Record<string, string>> {
    const source = this.#options.headers;
    if (source === undefined) return {};
    if (typeof source !== 'function') return { ...source };
    try {
      return { ...(await source(runContext)) };
    } catch (error) {
      throw new SwitchboardError(
        'invalid_input',
        `The headers function of ${this.#where} failed.`,
        { cause: error },
      );
    }
  }

  /** Classifies `error`, adding the Expose-Headers hint where it explains a 400. */
  #classify(
    error: unknown,
    handshake: HandshakeRecord | undefined,
    signal: AbortSignal | undefined,
  ): SwitchboardError {
    const classified = this.#scrubbed(
      toMcpError(error, this.#where, signal, { headerNames: this.#headerNames() }),
    );
    if (
      classified.code === 'needs_auth' &&
      this.#authorizationUrl !== undefined &&
      classified.details?.authorizationUrl === undefined
    ) {
      return new SwitchboardError(
        'needs_auth',
        // Shown to users as it is; the way on (authorize(), or details.authorizationUrl and
        // finishAuthorization()) is in the TSDoc of McpServer.
        `${this.#where} needs you to sign in.`,
        { cause: error, details: { authorizationUrl: this.#authorizationUrl.href } },
      );
    }
    if (
      classified.code === 'http_status' &&
      classified.details?.status === 400 &&
      handshake?.initializeSucceeded === true &&
      !handshake.sessionIdReadable &&
      /session/i.test(classified.message) &&
      !classified.message.includes(EXPOSE_SESSION_ID_HINT)
    ) {
      return new SwitchboardError(
        'http_status',
        `${classified.message} ${EXPOSE_SESSION_ID_HINT}`,
        {
          cause: error,
          details: { ...classified.details, hint: 'expose-mcp-session-id' },
        },
      );
    }
    return classified;
  }

  /**
   * The provider as the SDK sees it: every member is the provider's own (called on it), except
   * that `redirectToAuthorization` also notes the URL for the `needs_auth` error.
   */
  #recordRedirects(provider: OAuthClientProvider): OAuthClientProvider {
    const redirect = async (authorizationUrl: URL): Promise<void> => {
      this.#authorizationUrl = authorizationUrl;
      await provider.redirectToAuthorization(authorizationUrl);
    };
    const where = this.#where;
    const saveDiscoveryState = provider.saveDiscoveryState?.bind(provider);
    // The SDK calls this after discovery, before it registers or builds the authorization
    // request: the place to refuse an authorization server without PKCE S256 (MCP
    // authorization 2025-11-25: absent `code_challenge_methods_supported` means refuse; the SDK
    // only refuses a list without S256). Only when the provider keeps discovery state: the SDK
    // treats a provider with `saveDiscoveryState` as one that also returns it.
    // PKCE belongs to the authorization-code flow: grants without a redirect (client
    // credentials, jwt-bearer) are not checked.
    const checkedSave =
      saveDiscoveryState === undefined || provider.redirectUrl === undefined
        ? undefined
        : async (state: OAuthDiscoveryState): Promise<void> => {
            refuseWithoutPkce(state, where);
            await saveDiscoveryState(state);
          };
    return new Proxy(provider, {
      get(target, property) {
        if (property === 'redirectToAuthorization') return redirect;
        if (property === 'saveDiscoveryState' && checkedSave !== undefined) return checkedSave;
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }

  /** An unstarted transport, only to run the SDK's `finishAuth` (code exchange) with `provider`. */
  #finishingTransport(provider: OAuthClientProvider): Transport {
    const url = this.#options.url;
    if (url === undefined) {
      throw new SwitchboardError('invalid_input', `${this.#where}: OAuth needs an HTTP server.`);
    }
    const fetchImpl = this.#options.authFetch ?? this.#options.fetch;
    return new StreamableHTTPClientTransport(url, {
      authProvider: provider,
      ...(fetchImpl === undefined ? {} : { fetch: fetchImpl }),
    });
  }

  /** `error` with every secret this connection sent removed from its message. */
  #scrubbed(error: SwitchboardError): SwitchboardError {
    const message = this.scrubber.scrub(error.message);
    if (message === error.message) return error;
    return new SwitchboardError(error.code, message, {
      cause: error.cause,
      ...(error.details === undefined
        ? {}
        : { details: this.scrubber.scrubDeep({ ...error.details }) }),
    });
  }

  /** Names of static headers (for the CORS hint). A headers function's names are not known. */
  #headerNames(): string[] {
    const source = this.#options.headers;
    return source === undefined || typeof source === 'function' ? [] : Object.keys(source);
  }

  /** Awaits `promise`, but rejects at once with `aborted` when `signal` aborts. */
  async #withSignal<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    if (signal === undefined) return promise;
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_resolve, reject) => {
      onAbort = () => reject(this.#classify(signal.reason, undefined, signal));
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([promise, aborted]);
    } finally {
      if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
    }
  }

  #throwIfClosed(): void {
    if (this.#closed) {
      throw new SwitchboardError(
        'connection_closed',
        `The connection to ${this.#where} is closed.`,
      );
    }
  }

  #update(
    change: Partial<{
      info: McpConnectionInfo | undefined;
      status: McpConnectionStatus;
      error: SwitchboardError | undefined;
    }>,
  ): void {
    let changed = false;
    if ('info' in change && change.info !== this.#info) {
      this.#info = change.info;
      changed = true;
    }
    if (change.status !== undefined && change.status !== this.#status) {
      this.#status = change.status;
      changed = true;
    }
    if ('error' in change && change.error !== this.#error) {
      this.#error = change.error;
      changed = true;
    }
    if (!changed) return;
    for (const listener of [...this.#listeners]) listener();
  }
}

/** Request headers that carry protocol facts, never credentials: not recorded as secrets. */
const PROTOCOL_HEADERS = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'cache-control',
  'connection',
  'content-length',
  'content-type',
  'host',
  'last-event-id',
  'mcp-method',
  'mcp-name',
  'mcp-protocol-version',
  'user-agent',
]);

/**
 * The fetch middleware chain with a recorder nearest the network: every header value a request
 * to the server carries (the caller's headers, the SDK's OAuth `Authorization`, the session id),
 * except protocol headers, goes into `scrubber`.
 */
function recordSecrets(
  scrubber: SecretScrubber,
  middleware: McpConnectionOptions['fetchMiddleware'],
): (next: typeof fetch, client: Client) => typeof fetch {
  return (next, client) => {
    const recording: typeof fetch = (input, init) => {
      new Headers(init?.headers).forEach((value, name) => {
        if (!PROTOCOL_HEADERS.has(name)) scrubber.add(value);
      });
      return next(input, init);
    };
    return middleware === undefined ? recording : middleware(recording, client);
  };
}

/** A connect failure that means the cached era verdict no longer fits the server. */
function isServerChangedError(error: unknown): boolean {
  return (
    error instanceof SwitchboardError &&
    (error.code === 'unsupported_protocol_version' ||
      (error.code === 'http_status' && error.details?.status === 400))
  );
}

/** Just enough of a `DiscoverResult` to hand to `connect({ prior })`. */
function isDiscoverResult(value: unknown): value is DiscoverResult {
  return (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as { supportedVersions?: unknown }).supportedVersions)
  );
}
