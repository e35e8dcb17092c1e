import type {
  Client,
  McpSubscription,
  OAuthClientProvider,
  Tool as McpTool,
  Transport,
} from '@modelcontextprotocol/client';
import { SwitchboardError, isSwitchboardError } from '../errors/switchboard-error.ts';
import type { ToolOutput } from '../vocabulary/items.ts';
import type { ToolAnnotations } from '../vocabulary/interrupts.ts';
import type { Resolution } from '../vocabulary/interrupts.ts';
import type { Tool, ToolContext } from '../tools/tool-types.ts';
import type { InputRequest, ToolInterruptResult, ToolResume } from '../vocabulary/interrupts.ts';
import type {
  InteractiveOAuthProvider,
  OAuthAccountState,
} from '../oauth/interactive-oauth-provider.ts';
import {
  callMcpTool,
  toInputRequest,
  type ActiveCall,
  type McpCallScope,
} from './call-mcp-tool.ts';
import { ElicitationRouter } from './elicitation-router.ts';
import { listAllTools } from './list-all-tools.ts';
import {
  McpConnection,
  type McpConnectionInfo,
  type McpHeaders,
  type McpTransportKind,
} from './mcp-connection.ts';
import { mapProviderToolNames } from './provider-tool-names.ts';
import type { SchemaCache, SchemaCacheEntry } from './schema-cache.ts';
import { schemaCacheKey } from './schema-cache-key.ts';
import { SharedOperation } from './shared-operation.ts';
import { describeServer, toMcpError } from './to-mcp-error.ts';

export type { McpHeaders, McpTransportKind } from './mcp-connection.ts';

/** Tool names, or `'*'` for every tool of the server. */
export type ToolNameList = readonly string[] | '*';

/** Options of {@link mcpServer} (DESIGN.md §3). */
export interface McpServerOptions {
  /** The server's endpoint, e.g. `http://127.0.0.1:3001/mcp`. Required unless `createTransport`. */
  url?: string | URL;
  /** Shown in UIs and errors, and set as `Tool.server`. Default: the URL's host. */
  name?: string;
  /**
   * `streamable-http` (default), legacy `sse` (HTTP+SSE, 2024-11-05), or `auto`: Streamable HTTP,
   * falling back to legacy SSE when the first POST gets 400, 404 or 405.
   */
  transport?: McpTransportKind;
  /** Headers on every HTTP request (POST, GET stream, DELETE, legacy SSE); per run if a function. */
  headers?: McpHeaders;
  /** Allow-list: only these tools (by the server's names), or those the predicate keeps. */
  toolFilter?: readonly string[] | ((tool: McpTool) => boolean);
  /** Prepended to every tool name the model sees (then made provider-safe, DESIGN.md §5). */
  toolPrefix?: string;
  /** Tools kept out of the model's list until `tool_search` finds them. */
  deferredTools?: ToolNameList;
  /** Tools whose every call waits for a human's approval. */
  approvalRequiredTools?: ToolNameList;
  /** Where tool listings are cached (memory or IndexedDB); none by default. */
  schemaCache?: SchemaCache;
  /** How long a cached listing is used, in ms, unless the server sends `ttlMs`. Default 300 000. */
  cacheTtlMs?: number;
  /** Do not open the standalone GET stream (2025 era); the server then cannot push outside calls. */
  disableStandaloneSse?: boolean;
  /**
   * The server's time limit, in ms. Default 60 000. It bounds every wait on the server:
   * connecting (the `server/discover` probe and `initialize` handshake, each), every page of
   * `tools/list`, and each tool call, which fails after this long without a result or progress
   * (progress notifications start it again; see `maxTotalTimeoutMs` for the cap). A limit that
   * runs out fails with a `SwitchboardError` of code `timeout`. A call that timed out may have
   * run on the server.
   *
   * @throws SwitchboardError `invalid_input` (on first use) when it is not a positive number.
   */
  timeoutMs?: number;
  /** A call fails after this long in all (time a human spends answering excluded), in ms. Default 600 000. */
  maxTotalTimeoutMs?: number;
  /** The `fetch` to use; default the global one. */
  fetch?: typeof fetch;
  /** Makes a non-HTTP transport (e.g. `stdioTransport()` from `@switchboard/core/node`). */
  createTransport?: () => Transport;
  /**
   * OAuth 2.1 for an HTTP server (MCP authorization, 2025-11-25), with the SDK's
   * `OAuthClientProvider` interface: the SDK transport sends its token on every request,
   * discovers the authorization server, registers (pre-registered, client ID metadata document
   * or dynamic), refreshes, and asks for more scope on `403 insufficient_scope`. When the user
   * must authorize, operations fail with `needs_auth` (`details.authorizationUrl`: what the
   * provider's `redirectToAuthorization` was given), the snapshot status is `needs-auth`, and
   * {@link McpServer.finishAuthorization} completes it with the callback's code. The OAuth
   * requests go to `fetch` without `headers`. Tokens never enter errors or the schema cache.
   *
   * With an {@link InteractiveOAuthProvider} (`browserOAuthProvider()`, or `nodeOAuthProvider()`
   * from `@switchboard/core/node`) the server also offers {@link McpServer.authorize} (the
   * "Connect" button), {@link McpServer.signOut} and the non-secret `account` in its snapshot,
   * finishes a redirect-flow sign-in after a page reload by itself, and an agent run that hits
   * `needs_auth` on a tool call pauses with an `authorization` interrupt instead of failing.
   */
  authProvider?: OAuthClientProvider;
}

/**
 * Where the connection stands. `cached`: tools came from the schema cache, not yet connected.
 * `needs-auth`: the server wants OAuth authorization from the user (see
 * `McpServerOptions.authProvider`); `error` holds the `needs_auth` error.
 */
export type McpServerStatus =
  'idle' | 'connecting' | 'connected' | 'cached' | 'needs-auth' | 'error' | 'closed';

/** A stable snapshot of an {@link McpServer}'s state, for `useSyncExternalStore`. */
export interface McpServerSnapshot {
  status: McpServerStatus;
  /** Set when `status` is `error` or `needs-auth`. */
  error?: SwitchboardError;
  /** `streamable-http`, `sse` or `custom`, once connected. */
  transport?: McpConnectionInfo['transport'];
  /** `modern` (2026-07-28, no sessions) or `legacy` (`initialize` era). */
  protocolEra?: 'modern' | 'legacy';
  protocolVersion?: string;
  serverInfo?: { name: string; version: string };
  /** Provider-facing tools, once listed (replaced when the server's list changes). */
  tools?: readonly McpToolDescriptor[];
  /** `elicitationId`s the server reported complete (`notifications/elicitation/complete`). */
  completedElicitations: readonly string[];
  /**
   * Whether the user is signed in to the server's authorization server, with an
   * {@link InteractiveOAuthProvider} (never a token). Absent without one.
   */
  account?: OAuthAccountState;
}

/** What {@link McpServer.authorize} did. */
export type McpAuthorizeOutcome =
  /** Signed in (or already was): the server is connected. */
  | 'authorized'
  /** The popup was blocked: the page is navigating to the authorization server (redirect flow). */
  | 'redirected';

/** A tool as the server listed it, offered under a provider-safe name. */
export interface McpToolDescriptor extends Tool {
  /** The server's own name for the tool, used in `tools/call`. */
  originalName: string;
  server: string;
  title?: string;
  outputSchema?: Record<string, unknown>;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_TOTAL_TIMEOUT_MS = 600_000;
const DEFAULT_CACHE_TTL_MS = 300_000;
/** Questions one direct `callTool` answers before it gives up on a server that keeps asking. */
const MAX_INPUT_ROUNDS = 10;

/**
 * One remote MCP server as a toolset for an {@link Agent} (DESIGN.md §3), on
 * `@modelcontextprotocol/client` v2 (both protocol eras, negotiated automatically). It lists
 * all pages of tools (cached when a `schemaCache` is given), maps names to provider-safe ones,
 * maps results (DESIGN.md §6), forwards progress, turns elicitation into interrupts
 * (DESIGN.md §4), recovers expired sessions, re-lists on `list_changed`, and ends its sessions
 * on `close()`.
 */
export class McpServer {
  readonly name: string;
  /** The endpoint, when the server is reached over HTTP. */
  readonly url: URL | undefined;
  readonly #options: McpServerOptions;
  readonly #where: string;
  readonly #router = new ElicitationRouter();
  readonly #activeCalls = new Map<string, ActiveCall>();
  #connection: McpConnection | undefined;
  #prior: McpConnectionInfo | undefined;
  /** The listing every caller shares (single flight), until invalidated. */
  #tools: SharedOperation<McpToolDescriptor[]> | undefined;
  #lastRunContext: unknown;
  /** The 2026-07-28 `subscriptions/listen` stream that carries `list_changed`. */
  #subscription: Promise<McpSubscription | undefined> | undefined;
  #snapshot: McpServerSnapshot = { status: 'idle', completedElicitations: [] };
  readonly #listeners = new Set<() => void>();
  /** Set with an interactive OAuth provider: ends the account-state subscription on close. */
  #unsubscribeAccount: (() => void) | undefined;
  /** {@link authorize} calls in progress: they connect by themselves when signed in. */
  #authorizing = 0;
  /** Finishing a sign-in that came back by redirect (checked once, before the first connect). */
  #redirectFinish: Promise<void> | undefined;

  constructor(options: McpServerOptions) {
    this.#options = options;
    if (options.url === undefined) {
      if (options.createTransport === undefined) {
        throw new SwitchboardError(
          'invalid_input',
          'mcpServer() needs a url (or createTransport).',
        );
      }
      this.url = undefined;
      this.name = options.name ?? 'mcp-server';
      this.#where = `MCP server "${this.name}"`;
      return;
    }
    let url: URL;
    try {
      url = new URL(options.url);
    } catch (error) {
      throw new SwitchboardError(
        'invalid_input',
        `Not a valid MCP server URL: ${String(options.url)}`,
        {
          cause: error,
        },
      );
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new SwitchboardError(
        'invalid_input',
        `MCP server URLs must be http(s), got ${url.protocol}`,
      );
    }
    this.url = url;
    this.name = options.name ?? url.host;
    this.#where = describeServer(this.name, url);
    const provider = interactiveProvider(options.authProvider);
    if (provider !== undefined) {
      this.#unsubscribeAccount = provider.subscribe(() => void this.#refreshAccount(provider));
      void this.#refreshAccount(provider);
    }
  }

  /** Subscribes to snapshot changes; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The current state; the same object until something changes. */
  getSnapshot(): McpServerSnapshot {
    return this.#snapshot;
  }

  /**
   * Connects now (otherwise the first listing or call does).
   *
   * @throws SwitchboardError `connection_refused`, `http_status`, `unsupported_protocol_version`,
   *   `invalid_response`, `timeout` or `aborted`.
   */
  async connect(options: { signal?: AbortSignal; runContext?: unknown } = {}): Promise<void> {
    await this.#use(options.runContext, async () => undefined, options.signal);
  }

  /**
   * Completes the OAuth authorization a `needs_auth` failure asked for, then reconnects: the
   * SDK transport's `finishAuth` checks `iss` (RFC 9207) and exchanges the code for tokens (the
   * `authProvider` saves them). Check the callback's `state` first; the SDK does not.
   *
   * @param callback The callback URL's `searchParams` (preferred), or the bare `code`.
   * @param options `iss`: the callback's `iss` when `callback` is a bare code; `signal`; and
   *   `runContext` for the reconnect.
   * @throws SwitchboardError `invalid_input` (no authorization pending), `needs_auth`,
   *   `http_status`, `mcp_error`, `connection_refused`, `aborted`, or any failure of
   *   {@link McpServer.connect}.
   */
  async finishAuthorization(
    callback: string | URLSearchParams,
    options: { iss?: string; signal?: AbortSignal; runContext?: unknown } = {},
  ): Promise<void> {
    const connection = this.#ensureConnection();
    try {
      await connection.finishAuthorization(callback, {
        ...(options.iss === undefined ? {} : { iss: options.iss }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
    } catch (error) {
      const failure = toMcpError(error, this.#where, options.signal);
      if (failure.code === 'needs_auth') {
        this.#update({ ...this.#snapshot, status: 'needs-auth', error: failure });
      }
      throw failure;
    }
    await this.connect({
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      runContext: options.runContext,
    });
  }

  /**
   * Signs the user in (MCP authorization 2025-11-25), for a "Connect" button: with an
   * authorization pending (status `needs-auth`) the provider's `authorize` opens it at once (a
   * browser popup: call this from the click handler, before any other `await`); otherwise it
   * connects first, and signs in only if the server asks. Then it finishes the code exchange
   * ({@link finishAuthorization}) and reconnects.
   *
   * @returns `authorized`, or `redirected` when the popup was blocked and the page is leaving for
   *   the authorization server (the sign-in finishes after it comes back, on the first connect).
   * @throws SwitchboardError `invalid_input` without an {@link InteractiveOAuthProvider};
   *   `needs_auth` when the user denied, closed the popup, or the state did not match;
   *   `aborted`; or any failure of {@link connect}.
   */
  authorize(
    options: { signal?: AbortSignal; runContext?: unknown } = {},
  ): Promise<McpAuthorizeOutcome> {
    this.#authorizing++;
    // Called synchronously: the popup opens within the click's activation.
    const authorizing = this.#authorizeOnce(options);
    return authorizing.finally(() => {
      this.#authorizing--;
    });
  }

  async #authorizeOnce(options: {
    signal?: AbortSignal;
    runContext?: unknown;
  }): Promise<McpAuthorizeOutcome> {
    const provider = interactiveProvider(this.#options.authProvider);
    if (provider === undefined) {
      throw new SwitchboardError(
        'invalid_input',
        `${this.#where} has no interactive authProvider (browserOAuthProvider or nodeOAuthProvider).`,
      );
    }
    const signal = options.signal === undefined ? {} : { signal: options.signal };
    let url = this.#ensureConnection().pendingAuthorizationUrl;
    if (url === undefined) {
      try {
        await this.connect(options);
        return 'authorized';
      } catch (error) {
        if (!isSwitchboardError(error, 'needs_auth')) throw error;
      }
      url = this.#ensureConnection().pendingAuthorizationUrl;
      if (url === undefined) {
        throw new SwitchboardError(
          'needs_auth',
          `${this.#where} refused its token but started no authorization.`,
        );
      }
    }
    const connection = this.#ensureConnection();
    let callback: URLSearchParams | undefined;
    try {
      // No await before this call: a browser opens its popup only within the click's activation.
      callback = await provider.authorize(url, signal);
    } catch (error) {
      // A closed popup, a timeout or a denial leave the request usable for another Connect; an
      // answer that did not fit it (state) means the next Connect needs a new one.
      const reason = isSwitchboardError(error) ? error.details?.reason : undefined;
      if (
        (reason === 'state_mismatch' || reason === 'invalid_response') &&
        connection.pendingAuthorizationUrl === url
      ) {
        connection.dropPendingAuthorization();
      }
      throw error;
    }
    if (callback === undefined) return 'redirected';
    try {
      await this.finishAuthorization(callback, options);
    } catch (error) {
      // The code was spent (or refused): a second Connect must not reopen the same request
      // (a newer one the reconnect started is kept).
      if (connection.pendingAuthorizationUrl === url) connection.dropPendingAuthorization();
      throw error;
    }
    return 'authorized';
  }

  /**
   * Signs the user out: the provider forgets this server's tokens (and, with `forgetClient`,
   * its client registration), the sessions end, and the listing is forgotten (memory and schema
   * cache: what a server lists may depend on who is signed in). The next use needs a sign-in.
   *
   * @throws SwitchboardError `invalid_input` without an {@link InteractiveOAuthProvider}.
   */
  async signOut(options: { forgetClient?: boolean; signal?: AbortSignal } = {}): Promise<void> {
    const provider = interactiveProvider(this.#options.authProvider);
    if (provider === undefined) {
      throw new SwitchboardError(
        'invalid_input',
        `${this.#where} has no interactive authProvider.`,
      );
    }
    await provider.signOut(options.forgetClient === true ? { forgetClient: true } : {});
    const connection = this.#connection;
    const subscription = this.#subscription;
    this.#connection = undefined;
    this.#subscription = undefined;
    await (await subscription?.catch(() => undefined))?.close().catch(() => undefined);
    await connection?.close();
    await this.invalidate(options.signal === undefined ? {} : { signal: options.signal });
    const next: McpServerSnapshot = { ...this.#snapshot, status: 'idle' };
    delete next.error;
    delete next.tools;
    this.#update(next);
    await this.#refreshAccount(provider);
  }

  /**
   * Every tool (all pages) as agent tools with provider-safe names, filtered, prefixed and
   * flagged deferred / needing approval as configured. From the schema cache when a fresh entry
   * exists (no network at all); otherwise listed and cached. Kept until `invalidate()`,
   * `close()` or a `list_changed` from the server.
   *
   * Callers at the same time share one listing, which does not depend on any caller's
   * `signal`: aborting stops only that caller's wait (it rejects with `aborted`), the others get
   * the tools. The listing itself is abandoned only when every caller waiting for it aborted.
   *
   * @throws SwitchboardError `aborted` (this caller's `signal`), or any failure of
   *   {@link McpServer.connect} or of the listing (`invalid_response`, `timeout`, `needs_auth`, …).
   */
  async listTools(
    options: { signal?: AbortSignal; runContext?: unknown } = {},
  ): Promise<McpToolDescriptor[]> {
    this.#lastRunContext = options.runContext;
    const listing = (this.#tools ??= this.#shareListing(options.runContext, false));
    return await listing.wait(options.signal, (signal) =>
      toMcpError(signal.reason, this.#where, signal),
    );
  }

  /** Starts a listing with its own signal; forgotten when it fails or every waiter gave up. */
  #shareListing(runContext: unknown, refresh: boolean): SharedOperation<McpToolDescriptor[]> {
    const forget = (): void => {
      if (this.#tools === listing) this.#tools = undefined;
    };
    const listing = new SharedOperation(
      (signal) =>
        this.#loadTools(runContext, signal, refresh).catch((error: unknown) => {
          forget();
          throw error;
        }),
      forget,
    );
    return listing;
  }

  /** Forgets the listing (memory and schema cache); the next `listTools` asks the server. */
  async invalidate(options: { signal?: AbortSignal; runContext?: unknown } = {}): Promise<void> {
    this.#tools = undefined;
    const cache = this.#options.schemaCache;
    if (cache !== undefined) await cache.delete(await this.#cacheKey(options.runContext), options);
  }

  /**
   * Calls a tool by the server's own name, outside an agent run (a "tool runner"). When the
   * server asks the human (pushed `elicitation/create`, MRTR `input_required` or -32042), `onInput`
   * answers (default: decline), and the call goes on with that answer. Tool errors come back as
   * error outputs; connection failures throw a `SwitchboardError`.
   *
   * @throws SwitchboardError `outcome_unknown` when the call was sent and its answer lost (the
   *   connection dropped, the server died after receiving it, its event stream was cut): the
   *   tool may have run, so do not repeat a side effect blindly. `connection_refused` when the
   *   server could not be reached (nothing was sent). `timeout` when the call got no result or
   *   progress for `timeoutMs` (the server may have started it). Also `http_status`,
   *   `needs_auth`, `invalid_response`, `aborted`.
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: {
      signal?: AbortSignal;
      runContext?: unknown;
      onProgress?: ToolContext['reportProgress'];
      onInput?: (
        request: InputRequest,
      ) => Promise<Omit<Resolution, 'callId'> & { callId?: string }>;
    } = {},
  ): Promise<ToolOutput> {
    const signal = options.signal ?? new AbortController().signal;
    const callId = `direct-${crypto.randomUUID()}`;
    const ask = async (request: InputRequest): Promise<Resolution> => {
      const answer =
        options.onInput === undefined
          ? { action: 'reject' as const }
          : await options.onInput(request);
      return { ...answer, callId };
    };
    const listed = (this.#snapshot.tools ?? []).find((tool) => tool.originalName === name);
    let resume: ToolResume | undefined;
    // Each round answers one question; a server that keeps asking is stopped after a bound.
    for (let round = 0; round < MAX_INPUT_ROUNDS; round++) {
      const result = await callMcpTool(
        this.#callScope(false),
        {
          name,
          ...(listed?.outputSchema === undefined ? {} : { outputSchema: listed.outputSchema }),
        },
        args,
        {
          signal,
          callId,
          threadId: '',
          runId: '',
          runContext: options.runContext,
          ...(resume === undefined ? {} : { resume }),
          reportProgress: options.onProgress ?? (() => undefined),
          requestInput: (request) => ask(request),
          interrupt: (request, resumeState) => ({
            kind: 'switchboard.interrupt',
            request,
            resumeState,
          }),
        },
      );
      if (!('kind' in result)) return result;
      resume = { resolution: await ask(result.request), resumeState: result.resumeState };
    }
    const message = `${this.#where} kept asking for input (${MAX_INPUT_ROUNDS} rounds); the call was stopped.`;
    return { text: message, isError: true, error: { code: 'input_rounds_exceeded', message } };
  }

  /** Ends every session (HTTP DELETE, best effort) or the child process. Idempotent. */
  async close(): Promise<void> {
    const connection = this.#connection;
    const subscription = this.#subscription;
    this.#connection = undefined;
    this.#subscription = undefined;
    this.#tools = undefined;
    this.#unsubscribeAccount?.();
    this.#unsubscribeAccount = undefined;
    await (await subscription)?.close().catch(() => undefined);
    await connection?.close();
    this.#update({ status: 'closed', completedElicitations: [] });
  }

  async #loadTools(
    runContext: unknown,
    signal: AbortSignal | undefined,
    refresh: boolean,
  ): Promise<McpToolDescriptor[]> {
    const cache = this.#options.schemaCache;
    const key = cache === undefined ? undefined : await this.#cacheKey(runContext);
    if (cache !== undefined && key !== undefined && !refresh) {
      const entry = await cache.get(key, signal === undefined ? {} : { signal });
      if (entry !== undefined) {
        this.#rememberPrior(entry);
        const tools = this.#describeTools(entry.tools as McpTool[]);
        this.#update({
          ...this.#snapshot,
          status: this.#snapshot.status === 'connected' ? 'connected' : 'cached',
          tools,
          ...(entry.protocolEra === undefined ? {} : { protocolEra: entry.protocolEra }),
          ...(entry.protocolVersion === undefined
            ? {}
            : { protocolVersion: entry.protocolVersion }),
          ...(entry.serverInfo === undefined ? {} : { serverInfo: entry.serverInfo }),
        });
        return tools;
      }
    }
    const listing = await this.#use(
      runContext,
      (client) =>
        listAllTools(client, this.#where, signal, this.#options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      signal,
    );
    const listed = this.#applyFilter(listing.tools);
    if (cache !== undefined && key !== undefined) {
      const now = Date.now();
      const info = this.#connection?.info;
      const entry: SchemaCacheEntry = {
        tools: listed,
        storedAt: now,
        expiresAt: now + (listing.ttlMs ?? this.#options.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS),
      };
      if (info?.protocolEra !== undefined) entry.protocolEra = info.protocolEra;
      if (info?.protocolVersion !== undefined) entry.protocolVersion = info.protocolVersion;
      if (info?.discover !== undefined) entry.discover = info.discover;
      if (info?.serverInfo !== undefined) entry.serverInfo = info.serverInfo;
      await cache.set(key, entry, signal === undefined ? {} : { signal });
    }
    const tools = this.#describeTools(listed);
    this.#update({ ...this.#snapshot, tools });
    this.#listenForChanges(runContext);
    return tools;
  }

  /**
   * Modern-era servers push no unsolicited notifications: `list_changed` arrives on a
   * `subscriptions/listen` stream (2026-07-28), opened once per server unless long-lived
   * streams are disabled. Its notifications reach the same handler as the 2025 ones.
   */
  #listenForChanges(runContext: unknown): void {
    if (this.#subscription !== undefined || this.#options.disableStandaloneSse === true) return;
    if (this.#connection?.info?.protocolEra !== 'modern') return;
    this.#subscription = this.#use(runContext, (client) =>
      client.listen({ toolsListChanged: true }),
    ).catch(
      () => undefined, // a server without subscriptions: listings stay as they are until invalidate()
    );
  }

  #applyFilter(tools: McpTool[]): McpTool[] {
    const filter = this.#options.toolFilter;
    if (filter === undefined) return tools;
    if (typeof filter === 'function') return tools.filter((tool) => filter(tool));
    return tools.filter((tool) => filter.includes(tool.name));
  }

  #describeTools(listed: McpTool[]): McpToolDescriptor[] {
    const names = mapProviderToolNames(
      listed.map((tool) => tool.name),
      this.#options.toolPrefix ?? '',
    );
    const byOriginal = new Map(listed.map((tool) => [tool.name, tool]));
    return [...names].map(([safeName, originalName]) =>
      this.#toAgentTool(safeName, byOriginal.get(originalName) as McpTool),
    );
  }

  #toAgentTool(safeName: string, listed: McpTool): McpToolDescriptor {
    const outputSchema = listed.outputSchema as Record<string, unknown> | undefined;
    const tool: McpToolDescriptor = {
      name: safeName,
      originalName: listed.name,
      server: this.name,
      // Server text the model reads: secrets this client sent are taken out.
      description: this.#scrub(listed.description ?? listed.title ?? ''),
      inputSchema: listed.inputSchema as Record<string, unknown>,
      execute: async (args, context): Promise<ToolOutput | ToolInterruptResult> =>
        await callMcpTool(
          this.#callScope(true),
          { name: listed.name, ...(outputSchema === undefined ? {} : { outputSchema }) },
          (args ?? {}) as Record<string, unknown>,
          context,
        ),
    };
    const title = listed.title ?? listed.annotations?.title;
    if (title !== undefined) tool.title = title;
    if (outputSchema !== undefined) tool.outputSchema = outputSchema;
    if (listed.annotations !== undefined) tool.annotations = listed.annotations as ToolAnnotations;
    if (matches(this.#options.deferredTools, listed.name)) tool.deferred = true;
    if (matches(this.#options.approvalRequiredTools, listed.name)) tool.needsApproval = true;
    return tool;
  }

  #scrub(text: string): string {
    return this.#connection === undefined ? text : this.#connection.scrubber.scrub(text);
  }

  #callScope(authorizationInterrupts: boolean): McpCallScope {
    return {
      connection: this.#ensureConnection(),
      router: this.#router,
      activeCalls: this.#activeCalls,
      where: this.#where,
      timeoutMs: this.#options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxTotalTimeoutMs: this.#options.maxTotalTimeoutMs ?? DEFAULT_MAX_TOTAL_TIMEOUT_MS,
      authorizationInterrupts,
      onNeedsAuth: (error) => {
        // One call refused for want of (more) authorization — a step-up to a wider scope, most
        // often — leaves a connected server usable for the others: the call's own interrupt or
        // error asks for the sign-in. A listing or connect that fails says `needs-auth`.
        if (this.#snapshot.status === 'connected') return;
        this.#update({ ...this.#snapshot, status: 'needs-auth', error });
      },
    };
  }

  async #use<T>(
    runContext: unknown,
    operation: (client: Client) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    const connection = this.#ensureConnection();
    if (connection.info === undefined) this.#update({ ...this.#snapshot, status: 'connecting' });
    try {
      await this.#finishRedirectedSignIn(connection);
      const result = await connection.use(
        runContext,
        operation,
        signal === undefined ? {} : { signal },
      );
      this.#syncInfo(connection, 'connected');
      return result;
    } catch (error) {
      const failure = toMcpError(error, this.#where, signal);
      if (failure.code !== 'aborted') {
        const status = failure.code === 'needs_auth' ? 'needs-auth' : 'error';
        this.#update({ ...this.#snapshot, status, error: failure });
      }
      throw failure;
    }
  }

  /**
   * Once per server: a sign-in that came back by redirect (the popup was blocked) is finished
   * before the first connect. A failure is left to the connect, which then asks again.
   */
  async #finishRedirectedSignIn(connection: McpConnection): Promise<void> {
    const provider = interactiveProvider(this.#options.authProvider);
    if (provider === undefined) return;
    this.#redirectFinish ??= (async () => {
      const callback = await provider.takeRedirectCallback().catch(() => undefined);
      if (callback === undefined) return;
      await connection.finishAuthorization(callback).catch(() => undefined);
    })();
    await this.#redirectFinish;
  }

  async #refreshAccount(provider: InteractiveOAuthProvider): Promise<void> {
    let account: OAuthAccountState;
    try {
      account = await provider.accountState();
    } catch {
      return; // storage unavailable: the status still tells the story
    }
    const current = this.#snapshot.account;
    if (
      current !== undefined &&
      current.signedIn === account.signedIn &&
      current.issuer === account.issuer &&
      current.scope === account.scope &&
      current.expiresAt === account.expiresAt
    ) {
      return;
    }
    this.#update({ ...this.#snapshot, account });
    // Signed in elsewhere (another tab, or another McpServer for this URL): waiting for a
    // sign-in is over, so connect with the new tokens instead of showing "Connect" still.
    if (account.signedIn && this.#snapshot.status === 'needs-auth' && this.#authorizing === 0) {
      this.#connection?.dropPendingAuthorization();
      void this.connect({ runContext: this.#lastRunContext }).catch(() => {
        // The failure is in the snapshot.
      });
    }
  }

  #ensureConnection(): McpConnection {
    if (this.#connection !== undefined) return this.#connection;
    const options = this.#options;
    const connection = new McpConnection({
      name: this.name,
      ...(this.url === undefined ? {} : { url: this.url }),
      transport: options.transport ?? 'streamable-http',
      ...(options.headers === undefined ? {} : { headers: options.headers }),
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      ...(options.disableStandaloneSse === undefined
        ? {}
        : { disableStandaloneSse: options.disableStandaloneSse }),
      ...(options.createTransport === undefined
        ? {}
        : { createTransport: options.createTransport }),
      ...(options.authProvider === undefined ? {} : { authProvider: options.authProvider }),
      ...(this.#prior === undefined ? {} : { prior: this.#prior }),
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      capabilities: { elicitation: { form: { applyDefaults: true }, url: {} } },
      fetchMiddleware: (next, client) => this.#router.middleware(next, client),
      setupClient: (client) => this.#setupClient(client),
    });
    connection.onChange(() => this.#syncInfo(connection, this.#snapshot.status));
    this.#connection = connection;
    return connection;
  }

  #setupClient(client: Client): void {
    client.setRequestHandler('elicitation/create', async (request, context) => {
      const callKey = this.#router.callFor(client, context.mcpReq.id);
      const active = callKey === undefined ? undefined : this.#activeCalls.get(callKey);
      // A request outside any tool call (or one that cannot be told apart from another call's)
      // has no human to ask in an agent run.
      if (active === undefined) return { action: 'cancel' };
      return (await active.ask(toInputRequest(request.params as Record<string, unknown>))) as never;
    });
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      void this.#onToolsChanged();
    });
    client.setNotificationHandler('notifications/elicitation/complete', (notification) => {
      const id = (notification.params as { elicitationId?: unknown } | undefined)?.elicitationId;
      if (typeof id !== 'string') return;
      this.#update({
        ...this.#snapshot,
        completedElicitations: [...this.#snapshot.completedElicitations, id].slice(-100),
      });
    });
  }

  /** The server's tools changed: list every page again, replace the tools, refresh the cache. */
  async #onToolsChanged(): Promise<void> {
    const refreshed = this.#shareListing(this.#lastRunContext, true);
    this.#tools = refreshed;
    try {
      await refreshed.promise;
    } catch (error) {
      this.#update({ ...this.#snapshot, status: 'error', error: toMcpError(error, this.#where) });
    }
  }

  #rememberPrior(entry: SchemaCacheEntry): void {
    if (this.#connection !== undefined || entry.protocolEra === undefined) return;
    const transport =
      this.#options.createTransport === undefined
        ? this.#options.transport === 'sse'
          ? 'sse'
          : 'streamable-http'
        : 'custom';
    this.#prior = {
      transport,
      protocolEra: entry.protocolEra,
      ...(entry.discover === undefined ? {} : { discover: entry.discover }),
    };
  }

  async #cacheKey(runContext: unknown): Promise<string> {
    const configured = this.#options.headers;
    const headers = typeof configured === 'function' ? await configured(runContext) : configured;
    const filter = this.#options.toolFilter;
    return await schemaCacheKey({
      url: this.url ?? `custom://${encodeURIComponent(this.name)}`,
      transport: this.#options.transport ?? 'streamable-http',
      ...(Array.isArray(filter) ? { toolFilter: filter as readonly string[] } : {}),
      ...(this.#options.toolPrefix === undefined ? {} : { toolPrefix: this.#options.toolPrefix }),
      ...(headers === undefined ? {} : { headers }),
    });
  }

  #syncInfo(connection: McpConnection, status: McpServerStatus): void {
    const info = connection.info;
    const next: McpServerSnapshot = { ...this.#snapshot, status };
    if (status !== 'error' && status !== 'needs-auth') delete next.error;
    if (info !== undefined) {
      next.transport = info.transport;
      if (info.protocolEra !== undefined) next.protocolEra = info.protocolEra;
      if (info.protocolVersion !== undefined) next.protocolVersion = info.protocolVersion;
      if (info.serverInfo !== undefined) next.serverInfo = info.serverInfo;
    }
    if (
      next.status === this.#snapshot.status &&
      next.transport === this.#snapshot.transport &&
      next.protocolEra === this.#snapshot.protocolEra &&
      next.protocolVersion === this.#snapshot.protocolVersion &&
      next.serverInfo === this.#snapshot.serverInfo &&
      next.error === this.#snapshot.error
    ) {
      return;
    }
    this.#update(next);
  }

  #update(next: McpServerSnapshot): void {
    this.#snapshot = next;
    for (const listener of [...this.#listeners]) listener();
  }
}

function matches(list: ToolNameList | undefined, name: string): boolean {
  return list === '*' || (list !== undefined && list.includes(name));
}

/** Creates an {@link McpServer}. See {@link McpServerOptions}. */
export function mcpServer(options: McpServerOptions): McpServer {
  return new McpServer(options);
}

/** `provider` when it is an {@link InteractiveOAuthProvider} (it can take the user to sign in). */
function interactiveProvider(
  provider: OAuthClientProvider | undefined,
): InteractiveOAuthProvider | undefined {
  const candidate = provider as Partial<InteractiveOAuthProvider> | undefined;
  return typeof candidate?.authorize === 'function' &&
    typeof candidate.takeRedirectCallback === 'function' &&
    typeof candidate.signOut === 'function' &&
    typeof candidate.accountState === 'function' &&
    typeof candidate.subscribe === 'function'
    ? (candidate as InteractiveOAuthProvider)
    : undefined;
}
