import type { Client } from '@modelcontextprotocol/client';
import { messageOf } from '../errors/message-of.ts';
import { isSwitchboardError, SwitchboardError } from '../errors/switchboard-error.ts';
import { SecretScrubber } from '../internal/secret-scrubber.ts';
import { Store } from '../internal/store.ts';
import type { ToolInterruptResult } from '../vocabulary/interrupts.ts';
import type { ToolOutput } from '../vocabulary/items.ts';
import { isAppVisible, MCP_APP_MIME_TYPE, MCP_APPS_EXTENSION } from './apps/tool-ui-meta.ts';
import { callMcpTool } from './call/call-mcp-tool.ts';
import type { McpCallScope } from './call/call-scope.ts';
import { callToolDirectly, type DirectCallOptions } from './call/direct-call.ts';
import type { ActiveCall } from './call/resume-state.ts';
import { ElicitationRouter } from './elicitation-router.ts';
import { listedTarget } from './listed-tool-index.ts';
import { McpAuthorization, type McpAuthorizeOutcome } from './mcp-authorization.ts';
import { McpConnection } from './mcp-connection.ts';
import type { McpServerOptions, McpServerSnapshot, McpServerStatus } from './mcp-server-types.ts';
import type { SchemaCacheEntry } from './schema-cache.ts';
import { answerServerRequests } from './server-requests.ts';
import { ToolCatalog, type ToolCatalogHost } from './tool-catalog.ts';
import { ContentChangeStream } from './content-change-stream.ts';
import type { ClosableStream } from './connection/tab-stream-lead.ts';
import { checkLegacySseOption } from './connection/legacy-sse-option.ts';
import { TabStreamShare, type SharedListKind } from './tab-stream-share.ts';
import {
  DEFAULT_MCP_WAITING_NOTICE_MS,
  type McpRequestWaiting,
  type RequestWaitingWatch,
} from './connection/request-waiting.ts';
import { PromptCatalog } from './prompt-catalog.ts';
import { ResourceCatalog, type ResourceOperationOptions } from './resource-catalog.ts';
import {
  DEFAULT_MAX_RESOURCE_BYTES,
  type McpCompletion,
  type McpCompletionReference,
  type McpPrompt,
  type McpPromptResult,
  type McpResource,
  type McpResourceContents,
  type McpResourceSubscription,
  type McpResourceTemplate,
} from './resource-types.ts';
import type { ServerFeatureHost } from './server-feature-host.ts';
import type { McpToolDescriptor } from './mcp-server-types.ts';
import { describeServer, toMcpError } from './to-mcp-error.ts';
import { TASKS_EXTENSION } from './call/task-wire.ts';

export type { McpHeaders, McpTransportKind } from './connection/connection-info.ts';
export type {
  LegacySseTransportFactory,
  LegacySseTransportOptions,
} from './connection/legacy-sse-option.ts';
export type { McpAuthorizeOutcome } from './mcp-authorization.ts';
export type {
  McpServerOptions,
  McpServerSnapshot,
  McpServerStatus,
  McpToolDescriptor,
  ToolNameList,
} from './mcp-server-types.ts';
export type {
  McpCompletion,
  McpCompletionReference,
  McpPrompt,
  McpPromptArgument,
  McpPromptMessage,
  McpPromptResult,
  McpResource,
  McpResourceContents,
  McpResourceSubscription,
  McpResourceTemplate,
} from './resource-types.ts';
export type { ResourceOperationOptions } from './resource-catalog.ts';

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_TOTAL_TIMEOUT_MS = 600_000;

/**
 * One remote MCP server as a toolset for an {@link Agent} (docs/architecture.md, "The life of an
 * MCP call"), on
 * `@modelcontextprotocol/client` v2 (both protocol eras, negotiated automatically). It lists
 * all pages of tools (cached when a `schemaCache` is given), maps names to provider-safe ones,
 * maps results (docs/architecture.md, "The vocabulary"), forwards progress, turns elicitation into
 * interrupts
 * (docs/architecture.md, "The life of an interrupt"), recovers expired sessions, re-lists on
 * `list_changed`, and ends its sessions
 * on `close()`.
 *
 * It also offers the server's resources (`ResourceCatalog`: list, templates, read, subscribe)
 * and prompts (`PromptCatalog`: list, get, `completion/complete`) to an app.
 *
 * A facade: the connection (`McpConnection`: sessions, eras, retry), the tools
 * (`ToolCatalog`), resources and prompts (`ResourceCatalog`, `PromptCatalog`), OAuth
 * (`McpAuthorization`) and calls (`call/`) do the work; the server keeps the options and the
 * snapshot (a `Store`: `subscribe` and `getSnapshot` are bound).
 */
export class McpServer extends Store<McpServerSnapshot> {
  readonly name: string;
  /** The endpoint, when the server is reached over HTTP. */
  readonly url: URL | undefined;
  readonly #options: McpServerOptions;
  readonly #where: string;
  readonly #router = new ElicitationRouter();
  readonly #activeCalls = new Map<string, ActiveCall>();
  /** Call scopes of the current connection (see `#callScope`). */
  #directScope: McpCallScope | undefined;
  #agentScope: McpCallScope | undefined;
  /** Every secret any connection of this server sent, scrubbed from what the server says. */
  readonly #scrubber = new SecretScrubber();
  readonly #authorization: McpAuthorization;
  readonly #catalog: ToolCatalog;
  readonly #resources: ResourceCatalog;
  readonly #prompts: PromptCatalog;
  readonly #contentChanges: ContentChangeStream;
  #connection: McpConnection | undefined;
  /** The long-lived streams shared with other tabs (a browser only), made with the connection. */
  #streamShare: TabStreamShare | undefined;
  /** Set with an interactive OAuth provider: ends the account-state watch on close. */
  #unwatchAccount: (() => void) | undefined;

  /**
   * @param options See {@link McpServerOptions}.
   * @throws SwitchboardError `invalid_input` without `url` and `createTransport`, with a URL
   *   that is not a valid http(s) URL, or with `transport` `sse` or `auto` but no `legacySse`
   *   (and no `createTransport`); the message names the import to add.
   */
  constructor(options: McpServerOptions) {
    super({ status: 'idle', completedElicitations: [] });
    this.#options = options;
    this.url = serverUrl(options);
    this.name = options.name ?? this.url?.host ?? 'mcp-server';
    this.#where =
      this.url === undefined ? `MCP server "${this.name}"` : describeServer(this.name, this.url);
    checkLegacySseOption({
      where: this.#where,
      transport: options.transport ?? 'streamable-http',
      custom: options.createTransport !== undefined,
      legacySse: options.legacySse,
    });
    this.#authorization = new McpAuthorization({
      provider: options.authProvider,
      where: this.#where,
      url: this.url,
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      scrubber: this.#scrubber,
      headerNames: staticHeaderNames(options),
    });
    this.#catalog = new ToolCatalog(this.#catalogHost(), options);
    const featureHost = this.#featureHost();
    this.#resources = new ResourceCatalog(
      featureHost,
      options.maxResourceBytes ?? DEFAULT_MAX_RESOURCE_BYTES,
    );
    this.#prompts = new PromptCatalog(featureHost);
    this.#contentChanges = new ContentChangeStream(featureHost);
    if (this.url !== undefined) {
      this.#unwatchAccount = this.#authorization.watchAccount((account) => {
        this.set({ ...this.getSnapshot(), account });
        this.#reconnectIfSignedInElsewhere(account.signedIn);
      });
    }
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
   * Ends the sessions (HTTP DELETE, best effort, or the child process) and connects again: a new
   * session, for a "Reconnect" button — after the server was unreachable, restarted or lost its
   * session. Unlike {@link close} the server stays usable (sign-in state is still followed across
   * tabs). The tool listing is dropped with the connection; the next `listTools` asks again.
   * Calls still running on the old session end as their connection closes (`outcome_unknown`
   * when a call was sent: it is never sent again).
   *
   * @throws what {@link connect} throws; the failure is also in the snapshot (`status: 'error'`).
   */
  async reconnect(options: { signal?: AbortSignal; runContext?: unknown } = {}): Promise<void> {
    await this.#dropConnection();
    await this.connect(options);
  }

  /**
   * Completes the OAuth authorization a `needs_auth` failure asked for, then reconnects: the
   * SDK transport's `finishAuth` checks `iss` (RFC 9207) and exchanges the code for tokens (the
   * `authProvider` saves them). Check the callback's `state` first; the SDK does not.
   *
   * @param callback The callback URL's `searchParams` (preferred), or the bare `code`.
   * @param options `iss`: the callback's `iss` when `callback` is a bare code; `signal`; and
   *   `runContext` for the reconnect.
   * @throws SwitchboardError `invalid_input` (no `authProvider`), `needs_auth`, `http_status`,
   *   `mcp_error`, `connection_refused`, `aborted`, or any failure of {@link McpServer.connect}.
   */
  async finishAuthorization(
    callback: string | URLSearchParams,
    options: { iss?: string; signal?: AbortSignal; runContext?: unknown } = {},
  ): Promise<void> {
    const { signal } = options;
    try {
      await this.#authorization.finish(callback, {
        ...(options.iss === undefined ? {} : { iss: options.iss }),
        ...(signal === undefined ? {} : { signal }),
      });
    } catch (error) {
      const failure = toMcpError(error, this.#where, signal);
      if (failure.code === 'needs_auth') {
        this.set({ ...this.getSnapshot(), status: 'needs-auth', error: failure });
      }
      throw failure;
    }
    await this.connect({
      ...(signal === undefined ? {} : { signal }),
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
   * @throws SwitchboardError `invalid_input` without an `InteractiveOAuthProvider`;
   *   `needs_auth` when the user denied, closed the popup, or the state did not match;
   *   `aborted`; or any failure of {@link connect}.
   */
  authorize(
    options: { signal?: AbortSignal; runContext?: unknown } = {},
  ): Promise<McpAuthorizeOutcome> {
    return this.#authorization.authorize({
      connect: () => this.connect(options),
      finish: (callback) => this.finishAuthorization(callback, options),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  }

  /**
   * Signs the user out: the provider forgets this server's tokens (and, with `forgetClient`,
   * its client registration), the sessions end, and the listing is forgotten (memory and schema
   * cache: what a server lists may depend on who is signed in). The next use needs a sign-in.
   *
   * @throws SwitchboardError `invalid_input` without an `InteractiveOAuthProvider`.
   */
  async signOut(options: { forgetClient?: boolean; signal?: AbortSignal } = {}): Promise<void> {
    await this.#authorization.signOut(options.forgetClient === true ? { forgetClient: true } : {});
    await this.#dropConnection();
    await this.invalidate(options.signal === undefined ? {} : { signal: options.signal });
    const next: McpServerSnapshot = { ...this.getSnapshot(), status: 'idle' };
    delete next.error;
    delete next.tools;
    this.set(next);
    await this.#authorization.refreshAccount();
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
    return await this.#catalog.list(options.runContext, options.signal, (signal) =>
      toMcpError(signal.reason, this.#where, signal),
    );
  }

  /** Forgets the listing (memory and schema cache); the next `listTools` asks the server. */
  async invalidate(options: { signal?: AbortSignal; runContext?: unknown } = {}): Promise<void> {
    await this.#catalog.invalidate(options);
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
    options: DirectCallOptions = {},
  ): Promise<ToolOutput> {
    return await callToolDirectly(
      this.#callScope(false),
      listedTarget(this.getSnapshot().tools, name),
      args,
      options,
    );
  }

  /**
   * Every resource the server lists (`resources/list`, all pages, one request per page: a
   * repeated cursor or more than 100 pages stop it as `invalid_response`). Not kept: each call
   * asks the server. A server without the `resources` capability has none.
   *
   * @throws SwitchboardError `invalid_response`, `mcp_error` (the server's JSON-RPC error),
   *   `aborted`, or any failure of {@link McpServer.connect}.
   */
  async listResources(options: ResourceOperationOptions = {}): Promise<McpResource[]> {
    const resources = await this.#resources.list(options);
    this.#contentChanges.open(options.runContext);
    return resources;
  }

  /**
   * Every resource template (`resources/templates/list`, all pages, as {@link listResources}).
   *
   * @throws SwitchboardError as {@link listResources}.
   */
  async listResourceTemplates(
    options: ResourceOperationOptions = {},
  ): Promise<McpResourceTemplate[]> {
    const templates = await this.#resources.listTemplates(options);
    this.#contentChanges.open(options.runContext);
    return templates;
  }

  /**
   * Reads a resource (`resources/read`): each body with its MIME type and `size` in bytes; a
   * body over `maxBytes` (default `McpServerOptions.maxResourceBytes`, 1 MiB) comes without its
   * data, as `omitted: 'too_large'`.
   *
   * @throws SwitchboardError `mcp_error` (e.g. -32602 for an unknown resource; `details.code`),
   *   `aborted`, `timeout`, or any failure of {@link McpServer.connect}.
   */
  async readResource(
    uri: string,
    options: ResourceOperationOptions & { maxBytes?: number } = {},
  ): Promise<McpResourceContents[]> {
    return await this.#resources.read(uri, options);
  }

  /**
   * Calls `listener` whenever the server reports the resource changed
   * (`notifications/resources/updated`): on a 2025-era connection through `resources/subscribe`
   * (the server must declare `resources.subscribe`), on 2026-07-28 through a
   * `subscriptions/listen` stream with `resourceSubscriptions`. A subscription lives on the
   * connection it was made on: after `close()`, `signOut()` or a new session, subscribe again.
   *
   * @returns The subscription; `close()` it to stop.
   * @throws SwitchboardError `mcp_error` when the server offers no subscription to `uri`, or any
   *   failure of the request.
   */
  async subscribeResource(
    uri: string,
    listener: (uri: string) => void,
    options: ResourceOperationOptions = {},
  ): Promise<McpResourceSubscription> {
    return await this.#resources.subscribe(uri, listener, options);
  }

  /**
   * Every prompt the server lists (`prompts/list`, all pages, as {@link listResources}).
   *
   * @throws SwitchboardError as {@link listResources}.
   */
  async listPrompts(options: ResourceOperationOptions = {}): Promise<McpPrompt[]> {
    const prompts = await this.#prompts.list(options);
    this.#contentChanges.open(options.runContext);
    return prompts;
  }

  /**
   * Gets a prompt with its arguments filled in (`prompts/get`): its messages as text, with
   * non-text content kept as parts.
   *
   * @throws SwitchboardError `mcp_error` (e.g. -32602 for a missing required argument),
   *   `aborted`, `timeout`, or any failure of {@link McpServer.connect}.
   */
  async getPrompt(
    name: string,
    args: Record<string, string> = {},
    options: ResourceOperationOptions = {},
  ): Promise<McpPromptResult> {
    return await this.#prompts.get(name, args, options);
  }

  /**
   * Suggests values for a prompt argument or a resource template variable
   * (`completion/complete`, spec 2025-11-25 "Completion"). `context` holds the arguments filled
   * in so far. A server without the `completions` capability suggests nothing.
   *
   * @throws SwitchboardError `mcp_error`, `aborted`, `timeout`, or any failure of
   *   {@link McpServer.connect}.
   */
  async complete(
    ref: McpCompletionReference,
    argument: { name: string; value: string },
    options: ResourceOperationOptions & { context?: Record<string, string> } = {},
  ): Promise<McpCompletion> {
    return await this.#prompts.complete(ref, argument, options);
  }

  /**
   * The tool an MCP Apps view of this server may call by the server's name `name` (MCP Apps
   * 2026-01-26, "Visibility": a host MUST reject an app's call to a tool whose visibility lacks
   * `"app"`; apps reach only their own server's tools, which is why this lives on the server).
   *
   * @throws SwitchboardError `tool_not_found` when this server lists no such tool (another
   *   server's tool included) or its visibility lacks `app`; or any failure of
   *   {@link McpServer.listTools}.
   */
  async appTool(name: string, options: { signal?: AbortSignal } = {}): Promise<McpToolDescriptor> {
    const tools = await this.listTools(options);
    const tool = tools.find((candidate) => candidate.originalName === name);
    if (tool === undefined || !isAppVisible(tool)) {
      throw new SwitchboardError(
        'tool_not_found',
        `${this.#where} has no tool "${name}" that its apps may call.`,
      );
    }
    return tool;
  }

  /** Ends every session (HTTP DELETE, best effort) or the child process. Idempotent. */
  async close(): Promise<void> {
    this.#unwatchAccount?.();
    this.#unwatchAccount = undefined;
    await this.#dropConnection();
    this.set({ status: 'closed', completedElicitations: [] });
  }

  /** Ends the connection and what ran on it (the `list_changed` stream, a pending sign-in). */
  async #dropConnection(): Promise<void> {
    const connection = this.#connection;
    this.#connection = undefined;
    // A pending sign-in belonged to the connection's transports: the next connect starts anew.
    this.#authorization.dropPending();
    await this.#catalog.reset();
    await this.#contentChanges.reset();
    await this.#resources.reset();
    this.#streamShare?.close();
    this.#streamShare = undefined;
    await connection?.close();
  }

  /**
   * The call scope of the current connection, made once per connection and kind rather than
   * per call (its closures and object would cost every call).
   */
  #callScope(authorizationInterrupts: boolean): McpCallScope {
    const connection = this.#ensureConnection();
    const cached = authorizationInterrupts ? this.#agentScope : this.#directScope;
    if (cached?.connection === connection) return cached;
    const scope = this.#makeCallScope(authorizationInterrupts);
    if (authorizationInterrupts) this.#agentScope = scope;
    else this.#directScope = scope;
    return scope;
  }

  #makeCallScope(authorizationInterrupts: boolean): McpCallScope {
    return {
      connection: this.#ensureConnection(),
      router: this.#router,
      activeCalls: this.#activeCalls,
      where: this.#where,
      timeoutMs: this.#options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxTotalTimeoutMs: this.#options.maxTotalTimeoutMs ?? DEFAULT_MAX_TOTAL_TIMEOUT_MS,
      authorizationInterrupts,
      relistTool: (name) => this.#catalog.relist(name),
      onNeedsAuth: (error) => {
        // One call refused for want of (more) authorization — a step-up to a wider scope, most
        // often — leaves a connected server usable for the others: the call's own interrupt or
        // error asks for the sign-in. A listing or connect that fails says `needs-auth`.
        if (this.getSnapshot().status === 'connected') return;
        this.set({ ...this.getSnapshot(), status: 'needs-auth', error });
      },
    };
  }

  /**
   * @param serverErrorsFail Whether a JSON-RPC error of the server (`mcp_error`) marks the
   *   server as failed (`status: 'error'`): yes for connecting and listing tools, no for a
   *   resource or prompt request (an unknown URI says nothing about the server).
   */
  async #use<T>(
    runContext: unknown,
    operation: (client: Client) => Promise<T>,
    signal?: AbortSignal,
    serverErrorsFail = true,
  ): Promise<T> {
    const connection = this.#ensureConnection();
    if (connection.info === undefined) this.set({ ...this.getSnapshot(), status: 'connecting' });
    try {
      await this.#authorization.finishRedirectedSignIn();
      const result = await connection.use(
        runContext,
        operation,
        signal === undefined ? {} : { signal },
      );
      this.#syncInfo(connection, 'connected');
      return result;
    } catch (error) {
      const failure = toMcpError(error, this.#where, signal);
      // The server answered (with its own error): it is connected.
      if (!serverErrorsFail && failure.code === 'mcp_error')
        this.#syncInfo(connection, 'connected');
      else if (failure.code !== 'aborted') {
        const status = failure.code === 'needs_auth' ? 'needs-auth' : 'error';
        this.set({ ...this.getSnapshot(), status, error: failure });
      }
      throw failure;
    }
  }

  /**
   * Signed in elsewhere (another tab, or another McpServer for this URL): waiting for a sign-in
   * is over, so connect with the new tokens instead of showing "Connect" still.
   */
  #reconnectIfSignedInElsewhere(signedIn: boolean): void {
    if (!signedIn || this.getSnapshot().status !== 'needs-auth') return;
    if (this.#authorization.authorizing) return;
    this.#authorization.dropPending();
    void this.connect({ runContext: this.#catalog.lastRunContext }).catch(() => {
      // The failure is in the snapshot.
    });
  }

  #ensureConnection(): McpConnection {
    if (this.#connection !== undefined) return this.#connection;
    const options = this.#options;
    const prior = this.#catalog.prior;
    this.#streamShare =
      this.url === undefined ||
      options.createTransport !== undefined ||
      options.disableStandaloneSse === true ||
      options.shareStreamsAcrossTabs === false
        ? undefined
        : TabStreamShare.create(this.url, (kind) => this.#listChanged(kind));
    const tabStreamLead = this.#streamShare?.lead;
    const connection = new McpConnection({
      name: this.name,
      ...(this.url === undefined ? {} : { url: this.url }),
      transport: options.transport ?? 'streamable-http',
      ...(options.headers === undefined ? {} : { headers: options.headers }),
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      ...(options.disableStandaloneSse === undefined
        ? {}
        : { disableStandaloneSse: options.disableStandaloneSse }),
      ...(tabStreamLead === undefined ? {} : { tabStreamLead }),
      requestWaiting: this.#requestWaitingWatch(),
      ...(options.createTransport === undefined
        ? {}
        : { createTransport: options.createTransport }),
      ...(options.legacySse === undefined ? {} : { legacySse: options.legacySse }),
      ...(options.authProvider === undefined ? {} : { authorization: this.#authorization }),
      ...(prior === undefined ? {} : { prior }),
      scrubber: this.#scrubber,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      capabilities: {
        elicitation: { form: { applyDefaults: true }, url: {} },
        extensions: {
          // The tasks extension (SEP-2663): a 2026-07-28 server may answer `tools/call` with a task.
          [TASKS_EXTENSION]: {},
          // MCP Apps 2026-01-26, "Capability Negotiation": only when the app renders views.
          ...(options.apps === true
            ? { [MCP_APPS_EXTENSION]: { mimeTypes: [MCP_APP_MIME_TYPE] } }
            : {}),
        },
      },
      onServerRequest: (client, callKey, serverRequestId) =>
        this.#router.noteServerRequest(client, callKey, serverRequestId),
      setupClient: (client) => this.#setupClient(client),
    });
    connection.subscribe(() => this.#syncInfo(connection, this.getSnapshot().status));
    this.#connection = connection;
    return connection;
  }

  #setupClient(client: Client): void {
    answerServerRequests(client, {
      router: this.#router,
      activeCalls: this.#activeCalls,
      onToolsChanged: () => this.#heardListChange('tools'),
      onResourceUpdated: (uri) => this.#resources.noteUpdated(uri),
      onResourcesChanged: () => this.#heardListChange('resources'),
      onPromptsChanged: () => this.#heardListChange('prompts'),
      onElicitationComplete: (id) =>
        this.set((previous) => ({
          ...previous,
          completedElicitations: [...previous.completedElicitations, id].slice(-100),
        })),
    });
  }

  /** Keeps the snapshot's `waiting` list: requests without response headers for a while. */
  #requestWaitingWatch(): RequestWaitingWatch {
    const noticeMs = this.#options.waitingNoticeMs ?? DEFAULT_MCP_WAITING_NOTICE_MS;
    if (!(noticeMs > 0)) {
      throw new SwitchboardError(
        'invalid_input',
        `${this.#where}: waitingNoticeMs must be a positive number of milliseconds.`,
      );
    }
    const update = (change: (list: readonly McpRequestWaiting[]) => McpRequestWaiting[]) =>
      this.set((previous) => {
        const { waiting, ...rest } = previous;
        const next = change(waiting ?? []);
        return next.length === 0 ? rest : { ...rest, waiting: next };
      });
    return {
      noticeMs,
      onWaiting: (waiting) => update((list) => [...list, waiting]),
      onStarted: (waiting) => update((list) => list.filter((entry) => entry !== waiting)),
    };
  }

  /** This client's session heard a list change: apply it, and relay it to other tabs. */
  #heardListChange(kind: SharedListKind): void {
    this.#listChanged(kind);
    this.#streamShare?.heard(kind);
  }

  #listChanged(kind: SharedListKind): void {
    if (kind === 'tools') {
      void this.#catalog.refresh();
      return;
    }
    const key = kind === 'resources' ? 'resourceListVersion' : 'promptListVersion';
    this.set((previous) => ({ ...previous, [key]: (previous[key] ?? 0) + 1 }));
  }

  /**
   * Opens a long-lived stream now, or — when tabs share this server's streams — once this tab
   * leads them (see `TabStreamShare`).
   */
  #openLongLived(
    open: () => Promise<ClosableStream | undefined>,
  ): Promise<ClosableStream | undefined> {
    const share = this.#streamShare;
    return share === undefined ? open() : Promise.resolve(share.openWhenLeading(open));
  }

  /** What the resource and prompt catalogs need of this server. */
  #featureHost(): ServerFeatureHost {
    return {
      where: this.#where,
      timeoutMs: this.#options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      streamsDisabled: this.#options.disableStandaloneSse === true,
      use: (runContext, operation, signal) => this.#use(runContext, operation, signal, false),
      openLongLived: (open) => this.#openLongLived(open),
      scrub: (text) => this.#scrubber.scrub(text),
      protocolEra: () => this.#connection?.info?.protocolEra,
    };
  }

  /** What the tool catalog needs of this server. */
  #catalogHost(): ToolCatalogHost {
    return {
      name: this.name,
      url: this.url,
      where: this.#where,
      use: (runContext, operation, signal) => this.#use(runContext, operation, signal),
      connectionInfo: () => this.#connection?.info,
      hasConnection: () => this.#connection !== undefined,
      openLongLived: (open) => this.#openLongLived(open),
      scrub: (text) => this.#scrubber.scrub(text),
      execute: (tool, args, context): Promise<ToolOutput | ToolInterruptResult> =>
        callMcpTool(this.#callScope(true), tool, args, context),
      showTools: (tools, cached) => this.#showTools(tools, cached),
      refreshFailed: (error) =>
        this.set({
          ...this.getSnapshot(),
          status: 'error',
          error: toMcpError(error, this.#where),
        }),
      cacheFailed: (error) => this.#cacheFailed(error),
    };
  }

  /** Shows (or clears) a schema cache failure; the server's own status is not touched. */
  #cacheFailed(error: unknown): void {
    const snapshot = this.getSnapshot();
    if (error === undefined) {
      if (snapshot.schemaCacheError === undefined) return;
      const { schemaCacheError: _cleared, ...rest } = snapshot;
      this.set(rest);
      return;
    }
    const schemaCacheError = isSwitchboardError(error)
      ? error
      : new SwitchboardError('storage_error', `The schema cache failed: ${messageOf(error)}`, {
          cause: error,
        });
    this.set({ ...snapshot, schemaCacheError });
  }

  /** New tools in the snapshot; from the cache they also show what it knew about the server. */
  #showTools(tools: McpToolDescriptor[], cached: SchemaCacheEntry | undefined): void {
    const snapshot = this.getSnapshot();
    if (cached === undefined) {
      this.set({ ...snapshot, tools });
      return;
    }
    this.set({
      ...snapshot,
      status: snapshot.status === 'connected' ? 'connected' : 'cached',
      tools,
      ...(cached.protocolEra === undefined ? {} : { protocolEra: cached.protocolEra }),
      ...(cached.protocolVersion === undefined ? {} : { protocolVersion: cached.protocolVersion }),
      ...(cached.serverInfo === undefined ? {} : { serverInfo: cached.serverInfo }),
    });
  }

  /** The connection's info and `status` into the snapshot (a new one only if something changed). */
  #syncInfo(connection: McpConnection, status: McpServerStatus): void {
    const current = this.getSnapshot();
    const info = connection.info;
    const next: McpServerSnapshot = { ...current, status };
    if (status !== 'error' && status !== 'needs-auth') delete next.error;
    if (info !== undefined) {
      next.transport = info.transport;
      if (info.protocolEra !== undefined) next.protocolEra = info.protocolEra;
      if (info.protocolVersion !== undefined) next.protocolVersion = info.protocolVersion;
      if (info.serverInfo !== undefined) next.serverInfo = info.serverInfo;
    }
    if (
      next.status === current.status &&
      next.transport === current.transport &&
      next.protocolEra === current.protocolEra &&
      next.protocolVersion === current.protocolVersion &&
      next.serverInfo === current.serverInfo &&
      next.error === current.error
    ) {
      return;
    }
    this.set(next);
  }
}

/** Creates an {@link McpServer}. See {@link McpServerOptions}. */
export function mcpServer(options: McpServerOptions): McpServer {
  return new McpServer(options);
}

/**
 * The server's URL, checked; `undefined` for a custom transport.
 *
 * @throws SwitchboardError `invalid_input` without `url` and `createTransport`, or with a URL
 *   that does not parse or is not http(s).
 */
function serverUrl(options: McpServerOptions): URL | undefined {
  if (options.url === undefined) {
    if (options.createTransport !== undefined) return undefined;
    throw new SwitchboardError('invalid_input', 'mcpServer() needs a url (or createTransport).');
  }
  let url: URL;
  try {
    url = new URL(options.url);
  } catch (error) {
    throw new SwitchboardError(
      'invalid_input',
      `Not a valid MCP server URL: ${String(options.url)}`,
      { cause: error },
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SwitchboardError(
      'invalid_input',
      `MCP server URLs must be http(s), got ${url.protocol}`,
    );
  }
  return url;
}

/** Names of static headers (for CORS hints). A headers function's names are not known. */
function staticHeaderNames(options: McpServerOptions): string[] {
  const source = options.headers;
  return source === undefined || typeof source === 'function' ? [] : Object.keys(source);
}
