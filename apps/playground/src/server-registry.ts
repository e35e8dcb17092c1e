import {
  browserOAuthProvider,
  mcpServer,
  SwitchboardError,
  type InteractiveOAuthProvider,
  type McpAuthorizeOutcome,
  type McpServer,
  type McpServerSnapshot,
  type SchemaCache,
  Store,
} from '@switchboard/core';
import { legacySseTransport } from '@switchboard/core/legacy-sse';
import { saveServers, type ServerConfig } from './server-config.ts';
import { createServerFetch, TrafficLog } from './traffic-log.ts';

/** One server of the registry: its config, its live `McpServer` and its state. */
export interface ServerEntry {
  config: ServerConfig;
  server: McpServer;
  /** `server.getSnapshot()` as of the last change. */
  state: McpServerSnapshot;
  traffic: TrafficLog;
}

/** What the registry holds; a new object (and array) on every change. */
export interface ServerRegistrySnapshot {
  entries: readonly ServerEntry[];
  /** Why the last change could not be stored in this browser, if it could not. */
  storageProblem?: string;
}

/**
 * The playground's MCP servers as a `Store` (`subscribe` / `getSnapshot`): one `McpServer` per
 * config, re-emitting each server's snapshot changes. Config changes are saved to localStorage.
 * Options of an `McpServer` are fixed at creation, so changing one (a tool's deferred or
 * needs-approval toggle) closes the server and creates a new one; its tools come back from the
 * schema cache at once.
 *
 * A server with `auth: 'oauth'` gets a `browserOAuthProvider` whose redirect URI is the
 * playground's callback page (`/oauth-callback.html`); its tokens and client registrations live
 * in IndexedDB, so a new `McpServer` for the same URL stays signed in.
 */
export class ServerRegistry extends Store<ServerRegistrySnapshot> {
  readonly #schemaCache: SchemaCache;
  readonly #unsubscribe = new Map<McpServer, () => void>();
  /** Servers that asked for a sign-in and have not connected since. */
  readonly #awaitingSignIn = new WeakSet<McpServer>();

  constructor(configs: readonly ServerConfig[], schemaCache: SchemaCache) {
    // The entries need the schema cache (a field), which exists only after super().
    super({ entries: [] });
    this.#schemaCache = schemaCache;
    this.set({ entries: configs.map((config) => this.#create(config)) });
  }

  /** Lists the tools of every server (from the cache when fresh) and connects it. */
  start(): void {
    for (const entry of this.getSnapshot().entries) this.#open(entry.server);
  }

  /** Adds a server at the end and connects it. */
  add(config: ServerConfig): void {
    const entry = this.#create(config);
    this.#commit([...this.getSnapshot().entries, entry]);
    this.#open(entry.server);
  }

  /**
   * Removes a server and ends its session. An OAuth server is signed out first: its tokens and
   * client registration are forgotten in this browser.
   */
  remove(id: string): void {
    const entry = this.#find(id);
    if (entry === undefined) return;
    this.#commit(this.getSnapshot().entries.filter((candidate) => candidate.config.id !== id));
    if (entry.config.auth === 'oauth') {
      const server = entry.server;
      this.#unsubscribe.get(server)?.();
      this.#unsubscribe.delete(server);
      void server
        .signOut({ forgetClient: true })
        .catch(() => undefined)
        .finally(() => void server.close());
    } else {
      this.#dispose(entry.server);
    }
  }

  /** Changes a server's config: a new `McpServer` replaces the old one (closed). */
  update(id: string, change: (config: ServerConfig) => ServerConfig): void {
    const entry = this.#find(id);
    if (entry === undefined) return;
    const replacement = this.#create(change(entry.config), entry.traffic);
    this.#commit(
      this.getSnapshot().entries.map((candidate) =>
        candidate.config.id === id ? replacement : candidate,
      ),
    );
    this.#dispose(entry.server);
    this.#open(replacement.server);
  }

  /**
   * Signs in to an OAuth server (`McpServer.authorize()`): call it from the click handler — the
   * popup opens within the click's activation, so nothing is awaited before it. The tools are
   * listed once signed in (see `#onServerChange`).
   *
   * @returns `authorized`, or `redirected` when the popup was blocked and the page is leaving
   *   for the authorization server.
   * @throws SwitchboardError (as a rejection) `needs_auth` when the user closed the popup or
   *   denied; `invalid_input` for an unknown id or a server without OAuth.
   */
  authorize(id: string): Promise<McpAuthorizeOutcome> {
    const server = this.#find(id)?.server;
    if (server === undefined) {
      return Promise.reject(new SwitchboardError('invalid_input', `No server with id "${id}".`));
    }
    return server.authorize();
  }

  /**
   * Signs out of an OAuth server (its tokens are forgotten; the client registration is kept),
   * then connects again, which ends in `needs-auth` for a server that requires sign-in.
   */
  async signOut(id: string): Promise<void> {
    const server = this.#find(id)?.server;
    if (server === undefined) return;
    await server.signOut();
    try {
      await server.listTools();
    } catch {
      // In the snapshot (status 'needs-auth').
    }
  }

  /** Forgets the cached listing and lists the tools again from the server. */
  async refresh(id: string): Promise<void> {
    const server = this.#find(id)?.server;
    if (server === undefined) return;
    try {
      await server.invalidate();
      await server.listTools();
    } catch {
      // The failure is in the server's snapshot (status 'error').
    }
  }

  /**
   * Ends the server's sessions and connects again (`McpServer.reconnect`: a new session), then
   * lists the tools: after a failure, or when a call said the server could not be reached while
   * the card still shows the last good state.
   */
  async reconnect(id: string): Promise<void> {
    const server = this.#find(id)?.server;
    if (server === undefined) return;
    try {
      await server.reconnect();
      await server.listTools();
    } catch {
      // In the snapshot.
    }
  }

  #find(id: string): ServerEntry | undefined {
    return this.getSnapshot().entries.find((entry) => entry.config.id === id);
  }

  #create(config: ServerConfig, traffic = new TrafficLog()): ServerEntry {
    const headers = Object.fromEntries(
      config.headers
        .filter((header) => header.name.trim() !== '')
        .map((header) => [header.name.trim(), header.value]),
    );
    const server = mcpServer({
      url: config.url,
      name: config.name,
      transport: config.transport,
      // The playground offers every transport (a server may be added as `sse` or `auto`), so it
      // always brings the legacy SSE transport along.
      legacySse: legacySseTransport,
      ...(Object.keys(headers).length === 0 ? {} : { headers }),
      ...(config.toolPrefix === '' ? {} : { toolPrefix: config.toolPrefix }),
      deferredTools: config.deferredTools,
      approvalRequiredTools: config.approvalTools,
      // The playground renders MCP Apps views (McpAppView), so it says so to every server.
      apps: true,
      schemaCache: this.#schemaCache,
      fetch: createServerFetch({
        log: traffic,
        known2025: config.protocol === '2025',
        serverUrl: config.url,
      }),
      ...(config.auth === 'oauth' ? { authProvider: oauthProvider(config.url) } : {}),
    });
    const entry: ServerEntry = { config, server, state: server.getSnapshot(), traffic };
    this.#unsubscribe.set(
      server,
      server.subscribe(() => this.#onServerChange(server)),
    );
    return entry;
  }

  /** Lists the tools (from the cache when fresh), then connects so the status is real. */
  #open(server: McpServer): void {
    void (async () => {
      try {
        await server.listTools();
        if (server.getSnapshot().status === 'cached') await server.connect();
      } catch {
        // In the snapshot.
      }
    })();
  }

  #dispose(server: McpServer): void {
    this.#unsubscribe.get(server)?.();
    this.#unsubscribe.delete(server);
    void server.close();
  }

  #onServerChange(server: McpServer): void {
    if (!this.getSnapshot().entries.some((entry) => entry.server === server)) return;
    const state = server.getSnapshot();
    this.set((snapshot) => ({
      ...snapshot,
      entries: snapshot.entries.map((entry) =>
        entry.server === server ? { ...entry, state } : entry,
      ),
    }));
    // Signed in (from the card, the chat's banner or an authorization interrupt): a server that
    // asked for a sign-in could not list its tools, so list them now.
    if (state.status === 'needs-auth') {
      this.#awaitingSignIn.add(server);
    } else if (state.status === 'connected' && this.#awaitingSignIn.has(server)) {
      this.#awaitingSignIn.delete(server);
      if (state.tools === undefined) this.#open(server);
    }
  }

  #commit(entries: readonly ServerEntry[]): void {
    let storageProblem: string | undefined;
    try {
      saveServers(entries.map((entry) => entry.config));
    } catch (error) {
      storageProblem = `The server list could not be saved in this browser: ${String(error)}`;
    }
    this.set(storageProblem === undefined ? { entries } : { entries, storageProblem });
  }
}

/** The playground's OAuth callback page, on this origin (see oauth-callback.html). */
export function oauthRedirectUrl(): string {
  return new URL('/oauth-callback.html', globalThis.location.origin).href;
}

/**
 * The OAuth provider of one server: tokens and client registrations in IndexedDB (keyed by
 * server URL and issuer), the PKCE verifier and state in sessionStorage.
 */
function oauthProvider(serverUrl: string): InteractiveOAuthProvider {
  return browserOAuthProvider({
    serverUrl,
    redirectUrl: oauthRedirectUrl(),
    clientMetadata: { client_name: 'Switchboard playground' },
  });
}
