import type { PriorDiscovery } from '@modelcontextprotocol/client';
import { SwitchboardError } from '../../errors/switchboard-error.ts';
import { messageOf } from '../../errors/message-of.ts';
import type { McpAuthorization } from '../mcp-authorization.ts';
import {
  eraPrior,
  isServerChangedError,
  needsDiscovery,
  shouldFallBackToSse,
  transportKind,
} from './connect-plan.ts';
import type { McpConnectionInfo, McpConnectionPrior, McpTransportKind } from './connection-info.ts';
import { McpSession, type SessionConfig, type SessionTransportKind } from './mcp-session.ts';
import type { HandshakeRecord } from './session-fetch.ts';

/** What a {@link SessionConnector} works with; its owner is the `McpConnection`. */
export interface SessionConnectorOptions {
  config: SessionConfig;
  where: string;
  /** Timeout of each connect handshake, in ms. */
  timeoutMs: number;
  transport: McpTransportKind;
  /** A transport factory is configured (`custom` sessions). */
  custom: boolean;
  /** What an earlier connection learnt (the `prior` option). */
  prior: McpConnectionPrior | undefined;
  /** Told which transport met a 401. */
  authorization: McpAuthorization | undefined;
  /** What the connection knows about the server now. */
  info(): McpConnectionInfo | undefined;
  /** Records what a connect learnt (`undefined`: the verdict was dropped). */
  setInfo(info: McpConnectionInfo | undefined): void;
  /** Classifies a failure as the connection reports it. */
  classify(error: unknown, handshake: HandshakeRecord | undefined): SwitchboardError;
  /** Throws `connection_closed` once the connection is closed. */
  throwIfClosed(): void;
  onOpened(session: McpSession): void;
  onLost(session: McpSession): void;
  onDisposed(session: McpSession): void;
}

/**
 * Opens the sessions of one connection, discovering what the server speaks on the way: the
 * transport (`auto`: Streamable HTTP, else legacy SSE on the same URL) and the era (the
 * `server/discover` probe, or the verdict learnt before, dropped and probed again when the
 * server changed). The decisions are `connect-plan.ts`'s; this class does the I/O around them.
 */
export class SessionConnector {
  readonly #options: SessionConnectorOptions;
  /**
   * One per connect in flight, each aborted by {@link abortAll} (fails it at once). One
   * controller per connect, not one shared signal: many users connecting at once would otherwise
   * pile listeners on a single signal.
   */
  readonly #connectsInFlight = new Set<AbortController>();
  #priorDropped = false;
  /** Settles when the connect that is probing the server finishes (either way). */
  #discovering: Promise<void> | undefined;

  constructor(options: SessionConnectorOptions) {
    this.#options = options;
  }

  /** Fails every connect in flight at once with `reason` (the connection is closing). */
  abortAll(reason: SwitchboardError): void {
    for (const connect of this.#connectsInFlight) connect.abort(reason);
  }

  /**
   * Opens a session for the header set `key`: from the known transport and era, or discovering
   * them (one discovery at a time), and learns what the connect showed.
   *
   * @throws SwitchboardError, classified by the connection.
   */
  async connect(key: string, headers: Record<string, string>): Promise<McpSession> {
    // One discovery at a time: a connect that would probe (era or transport unknown) waits
    // for one already probing, then reuses its verdict (or probes itself if that failed).
    while (this.#discovering !== undefined && this.#needsDiscovery()) {
      await this.#discovering;
    }
    const discovering = this.#needsDiscovery();
    const kind = this.transportKind();
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
    return await opening;
  }

  /** Streamable HTTP, then legacy SSE on the same URL when the handshake got 400/404/405. */
  async #connectAuto(key: string, headers: Record<string, string>): Promise<McpSession> {
    const handshake: HandshakeRecord = { initializeSucceeded: false, sessionIdReadable: false };
    try {
      return await this.#connectProbingIfStale('streamable-http', key, headers, handshake);
    } catch (error) {
      if (!shouldFallBackToSse(error, handshake)) throw error;
      try {
        return await this.#open('sse', key, headers, { kind: 'legacy' });
      } catch (sseError) {
        const original = error as SwitchboardError;
        throw new SwitchboardError(
          original.code,
          `${original.message} (The legacy HTTP+SSE fallback on the same URL failed too: ${messageOf(sseError)})`,
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
    const prior = eraPrior(kind, this.#known());
    try {
      return await this.#open(kind, key, headers, prior, handshake);
    } catch (error) {
      if (prior === undefined || kind === 'sse' || !isServerChangedError(error)) throw error;
      this.dropPrior();
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
    const { authorization } = this.#options;
    try {
      this.#options.throwIfClosed();
      const session = await McpSession.open({
        kind,
        key,
        headers,
        prior,
        config: this.#options.config,
        where: this.#options.where,
        timeoutMs: this.#options.timeoutMs,
        handshake,
        onLost: (session) => this.#options.onLost(session),
        signal: connect.signal,
        onDisposed: (disposed) => this.#options.onDisposed(disposed),
        ...(authorization === undefined
          ? {}
          : { onUnauthorized: (transport) => authorization.noteUnauthorized(transport) }),
      });
      this.#options.onOpened(session);
      return session;
    } catch (error) {
      this.#options.throwIfClosed();
      throw this.#options.classify(error, handshake);
    } finally {
      this.#connectsInFlight.delete(connect);
    }
  }

  /** True when the next connect would probe: the transport (`auto`) or the era is unknown. */
  #needsDiscovery(): boolean {
    return needsDiscovery(this.transportKind(), this.#known());
  }

  /** Which transport to use next: custom, what worked before (auto only), or the option. */
  transportKind(): SessionTransportKind | 'auto' {
    return transportKind({
      custom: this.#options.custom,
      configured: this.#options.transport,
      learned: this.#known()?.transport,
    });
  }

  /** What is known about the server: learnt by a connect, else the `prior` option (if kept). */
  #known(): McpConnectionPrior | undefined {
    return this.#options.info() ?? (this.#priorDropped ? undefined : this.#options.prior);
  }

  /** Forgets the era verdict (the server changed): the next connect probes again. */
  dropPrior(): void {
    this.#priorDropped = true;
    if (this.#options.info() !== undefined) this.#options.setInfo(undefined);
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
    if (JSON.stringify(next) !== JSON.stringify(this.#options.info())) this.#options.setInfo(next);
  }
}
