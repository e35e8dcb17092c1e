import {
  Client,
  SseError,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import type {
  ClientCapabilities,
  ConnectOptions,
  OAuthClientProvider,
  PriorDiscovery,
  Transport,
} from '@modelcontextprotocol/client';
import { SwitchboardError } from '../../errors/switchboard-error.ts';
import { CONNECTION_LOST_DATA } from '../to-mcp-error.ts';
import { missingLegacySseError, type LegacySseTransportFactory } from './legacy-sse-option.ts';
import { createSessionFetch, type HandshakeRecord } from './session-fetch.ts';
import { RequestSignals, SessionTransport } from './session-transport.ts';
import type { TabStreamLead } from './tab-stream-lead.ts';
import type { RequestWaitingWatch } from './request-waiting.ts';
import type { JsonRpcId } from './scan-server-requests.ts';
import { carryTaskResults } from './task-result-envelope.ts';

/** The `clientInfo` Switchboard announces. */
const CLIENT_INFO = { name: 'switchboard', version: '0.1.0' };

/** JSON-RPC error code of the synthetic "answer lost" response (server-error range). */
const ANSWER_LOST_CODE = -32000;

/** How one session reaches its server. */
export type SessionTransportKind = 'streamable-http' | 'sse' | 'custom';

/**
 * What every session of one connection is made with: where the server is, how to reach it, what
 * the client declares. `McpConnection` fills it in from its own options and its authorization;
 * the session never sees the connection itself.
 */
export interface SessionConfig {
  /** The Streamable HTTP endpoint, or the legacy SSE event stream URL. Unused for `custom`. */
  url?: URL;
  /** The fetch that reaches the network. Default: the global `fetch` at call time. */
  fetch?: typeof fetch;
  /** Answer the standalone GET stream with a local 405 (it never reaches the network). */
  disableStandaloneSse?: boolean;
  /** This tab's lead over the server's long-lived streams (a browser only; see `TabStreamLead`). */
  tabStreamLead?: TabStreamLead;
  /** Reports requests that wait for response headers (HTTP transports). */
  requestWaiting?: RequestWaitingWatch;
  /** Client capabilities to declare. */
  capabilities: Record<string, unknown>;
  /** Called with each new `Client` before it connects: register handlers. */
  setupClient(client: Client): void;
  /** Wraps the network fetch (after headers are applied), once per session with its client. */
  fetchMiddleware?: (next: typeof fetch, client: Client) => typeof fetch;
  /** Told of each server request on a call's SSE answer (see `SessionFetchOptions`). */
  onServerRequest?: (client: Client, callKey: string, serverRequestId: JsonRpcId) => void;
  /** Makes the transport of a `custom` session (stdio). */
  createTransport?: () => Transport;
  /** Makes the transport of an `sse` session (legacy HTTP+SSE, `@switchboard/core/legacy-sse`). */
  legacySse?: LegacySseTransportFactory;
  /** The OAuth provider as the SDK transport should see it (see `McpAuthorization`). */
  authProvider?: OAuthClientProvider;
  /** The fetch for the SDK's OAuth requests. Default: `fetch`. */
  authFetch?: typeof fetch;
}

/** Options of {@link McpSession.open}. */
export interface OpenSessionOptions {
  kind: SessionTransportKind;
  /** The header-set key this session serves. */
  key: string;
  /** Resolved caller headers (HTTP transports). */
  headers: Readonly<Record<string, string>>;
  /** Era verdict to connect with (skips the `server/discover` probe), if any. */
  prior: PriorDiscovery | undefined;
  /** How sessions of this connection are made (URL, capabilities, fetch, middleware, …). */
  config: SessionConfig;
  /** Names the server in messages. */
  where: string;
  /** Timeout of the connect handshake and of the DELETE on close, in ms. */
  timeoutMs: number;
  /** Filled in with what the handshake answers showed (Streamable HTTP). */
  handshake: HandshakeRecord;
  /** Called once when the session can no longer be used (stream or process gone). */
  onLost(session: McpSession): void;
  /** Aborting closes the half-open client and transport, failing the connect at once. */
  signal: AbortSignal;
  /** Called once when the session's client and transport have been closed. */
  onDisposed(session: McpSession): void;
  /**
   * Called with the transport when the connect failed for want of OAuth authorization (the
   * SDK's `UnauthorizedError`), before it is closed: its `finishAuth` completes that attempt.
   */
  onUnauthorized?(transport: Transport): void;
}

/**
 * One connected `Client` + transport for one header set: runs operations, fails them at once
 * when the session is lost, ends the session on close. Internal to `McpConnection`.
 */
export class McpSession {
  readonly key: string;
  readonly kind: SessionTransportKind;
  readonly client: Client;
  readonly transport: Transport;
  /** Connected from a cached era verdict instead of a probe. */
  readonly usedPrior: boolean;
  readonly handshake: HandshakeRecord;
  /** An operation has completed on this session. */
  succeeded = false;

  readonly #where: string;
  readonly #onLost: (session: McpSession) => void;
  readonly #onDisposed: (session: McpSession) => void;
  readonly #pending = new Set<(error: unknown) => void>();
  #connected = false;
  #closing = false;
  #retired = false;
  /** Set by `retire(endSessionMs)`: end the session on the server once drained. */
  #endSessionMs: number | undefined;
  #lost: SwitchboardError | undefined;
  #disposed: Promise<void> | undefined;

  private constructor(
    options: OpenSessionOptions,
    client: Client,
    transport: Transport,
    usedPrior: boolean,
  ) {
    this.key = options.key;
    this.kind = options.kind;
    this.client = client;
    this.transport = transport;
    this.usedPrior = usedPrior;
    this.handshake = options.handshake;
    this.#where = options.where;
    this.#onLost = options.onLost;
    this.#onDisposed = options.onDisposed;
  }

  /**
   * Makes the client and transport and connects (`versionNegotiation: { mode: 'auto' }`, the
   * era verdict `prior` when given). On failure everything opened is closed again.
   *
   * @throws The SDK's error, unclassified.
   */
  static async open(options: OpenSessionOptions): Promise<McpSession> {
    const { config, kind } = options;
    const client = new Client(CLIENT_INFO, {
      capabilities: config.capabilities as ClientCapabilities,
      versionNegotiation: { mode: 'auto' },
    });
    config.setupClient(client);
    const holder: { session?: McpSession } = {};
    const transport = createTransport(options, client, (id) => holder.session?.answerLost(id));
    const session = new McpSession(
      options,
      client,
      transport,
      options.prior !== undefined && kind !== 'sse',
    );
    holder.session = session;
    transport.onerror = (error) => session.#onTransportError(error);
    transport.onclose = () => session.#onTransportClose();

    const { signal } = options;
    const connectOptions: ConnectOptions = { timeout: options.timeoutMs, signal };
    if (options.prior !== undefined) connectOptions.prior = options.prior;
    // The SDK does not abort a pending handshake fetch on `signal`; closing the transport does.
    const onAbort = (): void => void session.dispose();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      if (signal.aborted) throw signal.reason;
      await client.connect(transport, connectOptions);
      carryTaskResults(transport);
      if (signal.aborted) throw signal.reason;
    } catch (error) {
      if (UnauthorizedError.isInstance(error)) options.onUnauthorized?.(transport);
      await session.dispose();
      throw error;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
    session.#connected = true;
    return session;
  }

  /** Why the session is unusable, once it is. */
  get lost(): SwitchboardError | undefined {
    return this.#lost;
  }

  /** True when requests carried a session (a `Mcp-Session-Id`, or the legacy SSE endpoint's). */
  get hadSessionId(): boolean {
    if (this.transport instanceof StreamableHTTPClientTransport) {
      return this.transport.sessionId !== undefined;
    }
    return this.kind === 'sse';
  }

  /**
   * Runs `operation` with the client. Settles with its outcome, or rejects at once (with the
   * raw reason) when `signal` aborts or the session is lost meanwhile.
   */
  run<T>(operation: (client: Client) => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.#lost !== undefined) return Promise.reject(this.#lost);
    if (signal?.aborted === true) return Promise.reject(signal.reason);
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const finish = (): void => {
        settled = true;
        this.#pending.delete(fail);
        signal?.removeEventListener('abort', onAbort);
        if (this.#retired && this.#pending.size === 0) this.#drained();
      };
      const fail = (error: unknown): void => {
        if (settled) return;
        finish();
        reject(error);
      };
      const onAbort = (): void => fail(signal?.reason);
      this.#pending.add(fail);
      signal?.addEventListener('abort', onAbort, { once: true });
      let running: Promise<T>;
      try {
        running = operation(this.client);
      } catch (error) {
        fail(error);
        return;
      }
      running.then((value) => {
        if (settled) return;
        finish();
        resolve(value);
      }, fail);
    });
  }

  /**
   * Marks the session unusable: pending operations fail with `error`, the owner is told.
   * Later calls do nothing.
   */
  markLost(error: SwitchboardError): void {
    if (this.#lost !== undefined || this.#closing) return;
    this.#lost = error;
    const pending = [...this.#pending];
    this.#pending.clear();
    for (const fail of pending) fail(error);
    this.#onLost(this);
  }

  /**
   * Ends the session: an HTTP `DELETE` with the session id (Streamable HTTP with a session; 405
   * and 404 answers, and any other failure, are tolerated — ending is best effort and bounded
   * by `timeoutMs`), then closes the client and transport (which ends a stdio child process).
   */
  async terminate(timeoutMs: number): Promise<void> {
    this.#closing = true;
    const transport = this.transport;
    if (
      transport instanceof StreamableHTTPClientTransport &&
      transport.sessionId !== undefined &&
      this.#lost === undefined
    ) {
      const timer = new AbortController();
      await Promise.race([
        transport.terminateSession().catch(() => undefined),
        delay(timeoutMs, timer.signal),
      ]);
      timer.abort();
    }
    await this.dispose();
  }

  /**
   * Takes the session out of service: once no operation runs on it any more (at once when none
   * does) it is disposed, or ended on the server first when `endSessionMs` (the DELETE's time
   * bound, in ms) is given. Operations still running settle on their own.
   */
  retire(endSessionMs?: number): void {
    this.#retired = true;
    this.#endSessionMs = endSessionMs;
    if (this.#pending.size === 0) this.#drained();
  }

  #drained(): void {
    if (this.#endSessionMs === undefined) void this.dispose();
    else void this.terminate(this.#endSessionMs);
  }

  /** Closes the client and transport without ending the session on the server. Idempotent. */
  dispose(): Promise<void> {
    this.#closing = true;
    this.#disposed ??= Promise.allSettled([this.client.close(), this.transport.close()]).then(() =>
      this.#onDisposed(this),
    );
    return this.#disposed;
  }

  /**
   * The SSE answer to request `id` broke before the response arrived: hand the client a
   * JSON-RPC error response for it, so exactly that request fails now (as `connection_lost`,
   * see `toMcpError`) instead of at its timeout.
   */
  answerLost(id: JsonRpcId): void {
    this.transport.onmessage?.({
      jsonrpc: '2.0',
      id,
      error: {
        code: ANSWER_LOST_CODE,
        message: `The event stream answering request ${id} ended before the response`,
        data: { ...CONNECTION_LOST_DATA },
      },
    });
  }

  #onTransportError(error: Error): void {
    // Legacy HTTP+SSE: every answer travels on the one event stream. Once it breaks, pending
    // requests can never be answered, and a reconnect would open a different session.
    if (this.#connected && this.kind === 'sse' && error instanceof SseError) {
      this.markLost(
        new SwitchboardError(
          'connection_lost',
          `The event stream of ${this.#where} closed; its session is gone.`,
          { cause: error },
        ),
      );
    }
  }

  #onTransportClose(): void {
    if (!this.#connected) return;
    this.markLost(
      new SwitchboardError('connection_lost', `The connection to ${this.#where} closed.`),
    );
  }
}

function createTransport(
  options: OpenSessionOptions,
  client: Client,
  onAnswerLost: (id: JsonRpcId) => void,
): Transport {
  const { config, kind } = options;
  if (kind === 'custom') {
    if (config.createTransport === undefined) {
      throw new SwitchboardError('invalid_input', `${options.where} has no createTransport.`);
    }
    return config.createTransport();
  }
  const url = config.url;
  if (url === undefined) {
    throw new SwitchboardError('invalid_input', `${options.where} has no URL.`);
  }
  const baseFetch: typeof fetch = config.fetch ?? ((input, init) => fetch(input, init));
  const authProvider = config.authProvider;
  const authFetch = config.authFetch;
  const wrap = config.fetchMiddleware;
  const middleware = wrap === undefined ? undefined : (next: typeof fetch) => wrap(next, client);
  const noteServerRequest = config.onServerRequest;
  if (kind === 'sse') {
    // Checked when the server was set up; an internal caller could still leave it out.
    if (config.legacySse === undefined) throw missingLegacySseError(options.where, 'sse');
    return config.legacySse(url, {
      fetch: createSessionFetch({
        baseFetch,
        headers: options.headers,
        middleware,
        blockStandaloneGet: false,
        requestWaiting: config.requestWaiting,
        ...(authFetch === undefined ? {} : { authFetch }),
        ...(authProvider === undefined ? {} : { serverOrigin: url.origin }),
      }),
      ...(authProvider === undefined ? {} : { authProvider }),
    });
  }
  const requestSignals = new RequestSignals();
  return new SessionTransport(
    url,
    {
      fetch: createSessionFetch({
        baseFetch,
        headers: options.headers,
        middleware,
        blockStandaloneGet: config.disableStandaloneSse === true,
        tabLead: config.tabStreamLead,
        requestWaiting: config.requestWaiting,
        handshake: options.handshake,
        requestSignals,
        ...(noteServerRequest === undefined
          ? {}
          : {
              onServerRequest: (callKey: string, id: JsonRpcId) =>
                noteServerRequest(client, callKey, id),
            }),
        ...(authFetch === undefined ? {} : { authFetch }),
        ...(authProvider === undefined ? {} : { serverUrl: url }),
      }),
      ...(authProvider === undefined ? {} : { authProvider }),
    },
    { onAnswerLost, requestSignals },
  );
}

/** Resolves after `milliseconds`, or at once when `signal` aborts. */
function delay(milliseconds: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, milliseconds);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
