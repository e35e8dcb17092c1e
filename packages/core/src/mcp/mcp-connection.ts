import type { Client } from '@modelcontextprotocol/client';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import { SecretScrubber } from '../internal/secret-scrubber.ts';
import { Store } from '../internal/store.ts';
import { retryReason, type RetryReason } from './connection/connect-plan.ts';
import type { McpConnectionInfo } from './connection/connection-info.ts';
import type {
  McpConnectionOptions,
  McpConnectionState,
  McpConnectionStatus,
  McpUseOptions,
} from './connection/connection-options.ts';
import { headerSetKey } from './connection/header-set-key.ts';
import { checkLegacySseOption } from './connection/legacy-sse-option.ts';
import type { McpSession, SessionConfig } from './connection/mcp-session.ts';
import { recordSecrets } from './connection/record-secrets.ts';
import { scrubError } from './connection/scrub-error.ts';
import { SessionConnector } from './connection/session-connector.ts';
import type { HandshakeRecord } from './connection/session-fetch.ts';
import { withSessionIdHint } from './connection/session-id-hint.ts';
import { SessionPool, type SessionLease } from './connection/session-pool.ts';
import { withSignal } from './connection/with-signal.ts';
import { describeServer, toMcpError } from './to-mcp-error.ts';

export type {
  McpConnectionInfo,
  McpHeaders,
  McpTransportKind,
} from './connection/connection-info.ts';
export type {
  McpConnectionOptions,
  McpConnectionState,
  McpConnectionStatus,
  McpUseOptions,
} from './connection/connection-options.ts';

/** Default of {@link McpConnectionOptions.timeoutMs}, in ms. */
const DEFAULT_TIMEOUT_MS = 60_000;
/**
 * Most idle sessions kept open (across header sets); beyond it the least recently used idle one
 * is ended. Sessions in use are never ended for this, however many users there are at once.
 */
const MAX_IDLE_SESSIONS = 16;

/**
 * The connection layer of the MCP client: one server, any transport, both protocol eras, one
 * session per distinct header set. Internal (not exported): `McpServer` builds on it. What
 * follows is the protocol behaviour it implements; docs/mcp-servers.md tells it for users.
 *
 * Transports (`options.transport`, docs/architecture.md, "The life of an MCP call"):
 * - `streamable-http`: `StreamableHTTPClientTransport` on `url`.
 * - `sse`: the legacy HTTP+SSE transport (2024-11-05) on `url` (the event stream URL, e.g.
 *   `/sse`), made by `options.legacySse` (`@switchboard/core/legacy-sse`, a separate import so
 *   the SDK's `SSEClientTransport` and `eventsource` stay out of apps that never use it; `sse`
 *   and `auto` without it throw at construction); its session is always in the 2025 era, so no
 *   `server/discover` probe is sent.
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
 *
 * State: {@link info}, {@link status} and {@link error} are one {@link McpConnectionState}
 * snapshot (`subscribe`/`getSnapshot`, bound, for `useSyncExternalStore`).
 */
export class McpConnection extends Store<McpConnectionState> {
  /**
   * The secret values this connection sent (caller headers, OAuth `Authorization`), recorded as
   * each request goes out: scrubs them from server text (errors here; results and messages in
   * the layers above).
   */
  readonly scrubber: SecretScrubber;
  readonly #options: McpConnectionOptions;
  readonly #config: SessionConfig;
  readonly #where: string;
  readonly #timeoutMs: number;
  readonly #pool: SessionPool;
  /** Every connected session not yet disposed, including retired ones still draining. */
  readonly #openSessions = new Set<McpSession>();
  readonly #localKeys = new Map<string, string>();
  readonly #connector: SessionConnector;
  #closed = false;
  #closing: Promise<void> | undefined;
  /** Static headers (or none) and their key, once worked out (see {@link #headersFor}). */
  #fixedHeaders: { headers: Record<string, string>; key: string } | undefined;
  /** Lease options, made once rather than per operation. */
  readonly #sharedLease = {
    exclusive: false,
    sharedStream: () => this.#connector.transportKind() === 'sse',
  };
  readonly #exclusiveLease = { ...this.#sharedLease, exclusive: true };

  /**
   * @param options See {@link McpConnectionOptions}. Nothing connects until {@link use}.
   * @throws SwitchboardError `invalid_input` without `url` and without `createTransport`, with a
   *   `timeoutMs` that is not a positive number, or with `transport` `sse` or `auto` but no
   *   `legacySse` (and no `createTransport`).
   */
  constructor(options: McpConnectionOptions) {
    super({ info: undefined, status: 'idle', error: undefined });
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
    checkLegacySseOption({
      where: `MCP server "${options.name}"`,
      transport: options.transport,
      custom: options.createTransport !== undefined,
      legacySse: options.legacySse,
    });
    this.#options = options;
    this.scrubber = options.scrubber ?? new SecretScrubber();
    const { authorization } = options;
    this.#config = {
      ...options,
      fetchMiddleware: recordSecrets(this.scrubber, options.fetchMiddleware),
      ...(authorization?.provider === undefined ? {} : { authProvider: authorization.provider }),
      ...(authorization?.authFetch === undefined ? {} : { authFetch: authorization.authFetch }),
    };
    this.#timeoutMs = timeoutMs;
    const where =
      options.createTransport === undefined && options.url !== undefined
        ? describeServer(options.name, options.url)
        : `MCP server "${options.name}"`;
    this.#where = where;
    this.#connector = new SessionConnector({
      config: this.#config,
      where,
      timeoutMs,
      transport: options.transport,
      custom: options.createTransport !== undefined,
      prior: options.prior,
      authorization,
      info: () => this.info,
      setInfo: (info) => this.#update({ info }),
      classify: (error, handshake) => this.#classify(error, handshake, undefined),
      throwIfClosed: () => this.#throwIfClosed(),
      onOpened: (session) => this.#openSessions.add(session),
      onLost: (session) => this.#pool.discard(session),
      onDisposed: (session) => this.#openSessions.delete(session),
    });
    this.#pool = new SessionPool({
      open: (key, headers) => this.#connect(key, headers),
      maxIdle: MAX_IDLE_SESSIONS,
      endSessionMs: timeoutMs,
    });
  }

  /**
   * What is known about the server: transport, era, version, `serverInfo`, discover result,
   * instructions. `undefined` until the first connect succeeds. The object is replaced (never
   * mutated) when something changes, so it can serve as a `useSyncExternalStore` snapshot.
   */
  get info(): McpConnectionInfo | undefined {
    return this.getSnapshot().info;
  }

  /** Where the connection stands, as of its last connect attempt (or `closed`). */
  get status(): McpConnectionStatus {
    return this.getSnapshot().status;
  }

  /** Why the last connect failed, while {@link status} is `error`. */
  get error(): SwitchboardError | undefined {
    return this.getSnapshot().error;
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
    const { headers, key } = this.#fixedHeaders ?? (await this.#headersFor(runContext, signal));
    const exclusive = options.exclusive === true;
    let lease =
      this.#pool.acquireReady(key, exclusive ? this.#exclusiveLease : this.#sharedLease) ??
      (await this.#lease(key, headers, exclusive, signal));
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
    if (retryReason === 'stale-prior') this.#connector.dropPrior();
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
      this.#connector.abortAll(reason);
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
      if (classified.code === 'needs_auth') {
        this.#options.authorization?.noteUnauthorized(session.transport);
      }
      throw classified;
    }
  }

  /** Why a failed operation may be retried once on a new session, if it may. */
  #retryReason(
    session: McpSession,
    error: unknown,
    signal: AbortSignal | undefined,
  ): RetryReason | undefined {
    return retryReason({
      error,
      stopped: this.#closed || signal?.aborted === true,
      hadSessionId: session.hadSessionId,
      usedPrior: session.usedPrior,
      succeeded: session.succeeded,
    });
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
      .acquire(key, headers, exclusive ? this.#exclusiveLease : this.#sharedLease)
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
    if (this.status !== 'connected') this.#update({ status: 'connecting' });
    try {
      const session = await this.#connector.connect(key, headers);
      this.#update({ status: 'connected', error: undefined });
      return session;
    } catch (error) {
      const classified = this.#classify(error, undefined, undefined);
      if (!this.#closed) this.#update({ status: 'error', error: classified });
      throw classified;
    }
  }

  /**
   * The headers of `runContext` and their key. Static headers (or none) are worked out once
   * and kept in {@link #fixedHeaders}: every later operation skips resolving and hashing them.
   */
  async #headersFor(
    runContext: unknown,
    signal: AbortSignal | undefined,
  ): Promise<{ headers: Record<string, string>; key: string }> {
    const headers = await this.#withSignal(this.#resolveHeaders(runContext), signal);
    const key = await headerSetKey(headers, this.#localKeys);
    const resolved = { headers, key };
    if (typeof this.#options.headers !== 'function') this.#fixedHeaders = resolved;
    return resolved;
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

  /**
   * Classifies `error` (secrets scrubbed), adding the pending authorization URL to a
   * `needs_auth` failure and the Expose-Headers hint where it explains a 400.
   */
  #classify(
    error: unknown,
    handshake: HandshakeRecord | undefined,
    signal: AbortSignal | undefined,
  ): SwitchboardError {
    const classified = scrubError(
      this.scrubber,
      toMcpError(error, this.#where, signal, { headerNames: this.#headerNames() }),
    );
    const authorization = this.#options.authorization;
    if (classified.code === 'needs_auth' && authorization !== undefined) {
      return authorization.withPendingUrl(classified, error);
    }
    return withSessionIdHint(classified, error, handshake);
  }

  /** Names of static headers (for the CORS hint). A headers function's names are not known. */
  #headerNames(): string[] {
    const source = this.#options.headers;
    return source === undefined || typeof source === 'function' ? [] : Object.keys(source);
  }

  /** Awaits `promise`, but rejects at once with `aborted` when `signal` aborts. */
  #withSignal<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    return withSignal(promise, signal, (reason) => this.#classify(reason, undefined, signal));
  }

  #throwIfClosed(): void {
    if (this.#closed) {
      throw new SwitchboardError(
        'connection_closed',
        `The connection to ${this.#where} is closed.`,
      );
    }
  }

  /** Applies `change` to the snapshot; a new snapshot (and a notification) only if it differs. */
  #update(change: Partial<McpConnectionState>): void {
    this.set((previous) => {
      const next = { ...previous, ...change };
      return next.info === previous.info &&
        next.status === previous.status &&
        next.error === previous.error
        ? previous
        : next;
    });
  }
}
