import type { Client, Tool as McpTool } from '@modelcontextprotocol/client';
import { isToolInterruptResult, type ToolContext } from '../tools/tool-types.ts';
import type { ToolAnnotations, ToolInterruptResult } from '../vocabulary/interrupts.ts';
import type { ToolOutput } from '../vocabulary/items.ts';
import type { McpConnectionInfo, McpConnectionPrior } from './connection/connection-info.ts';
import type { ClosableStream } from './connection/tab-stream-lead.ts';
import { readToolUi } from './apps/tool-ui-meta.ts';
import { listAllTools } from './list-all-tools.ts';
import type { McpServerOptions, McpToolDescriptor, ToolNameList } from './mcp-server-types.ts';
import { toProviderToolNames } from './provider-tool-names.ts';
import type { SchemaCache, SchemaCacheChange, SchemaCacheEntry } from './schema-cache.ts';
import { schemaCacheKey } from './schema-cache-key.ts';
import { SharedOperation } from './shared-operation.ts';

/** The tool the server listed, as a call needs it: its own name and its output schema. */
export interface McpToolTarget {
  name: string;
  outputSchema?: Record<string, unknown>;
  /** Its `x-mcp-header` declarations are mirrored as `Mcp-Param-*` (`call/param-headers.ts`). */
  inputSchema?: Record<string, unknown>;
  /**
   * The tool's `execution.taskSupport` when it may run as a task (spec 2025-11-25, "Tasks"):
   * a 2025 call then asks for one (`call/task.ts`).
   */
  taskSupport?: 'optional' | 'required';
}

/**
 * The options of `McpServerOptions` a catalog reads (see there for their meaning). The key of
 * the schema cache includes the transport and header options, so they are here too.
 */
export type ToolCatalogOptions = Pick<
  McpServerOptions,
  | 'transport'
  | 'headers'
  | 'toolFilter'
  | 'toolPrefix'
  | 'deferredTools'
  | 'approvalRequiredTools'
  | 'schemaCache'
  | 'cacheTtlMs'
  | 'disableStandaloneSse'
  | 'timeoutMs'
  | 'createTransport'
>;

/** What a {@link ToolCatalog} needs from its server. */
export interface ToolCatalogHost {
  readonly name: string;
  readonly url: URL | undefined;
  readonly where: string;
  /** Runs `operation` on the server's connection (connecting as needed; status kept). */
  use<T>(
    runContext: unknown,
    operation: (client: Client) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T>;
  /** What the live connection learnt; `undefined` without one. */
  connectionInfo(): McpConnectionInfo | undefined;
  /** True once the server made its connection. */
  hasConnection(): boolean;
  /** Server text with the secrets this client sent taken out. */
  scrub(text: string): string;
  /** See `ServerFeatureHost.openLongLived`. */
  openLongLived(
    open: () => Promise<ClosableStream | undefined>,
  ): Promise<ClosableStream | undefined>;
  /** Runs one call of `tool` for an agent run. */
  execute(
    tool: McpToolTarget,
    args: Record<string, unknown>,
    context: ToolContext,
  ): Promise<ToolOutput | ToolInterruptResult>;
  /** New tools to show; `cached` when they came from the schema cache (with its entry). */
  showTools(tools: McpToolDescriptor[], cached?: SchemaCacheEntry): void;
  /** A re-listing after `list_changed` failed. */
  refreshFailed(error: unknown): void;
  /**
   * The schema cache failed a read, write or delete (`undefined`: the last one worked again).
   * The listing went on without it: a cache outage costs requests, never the tools.
   */
  cacheFailed(error: unknown): void;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_CACHE_TTL_MS = 300_000;

/**
 * The tools of one MCP server (the second cut of `McpServer`): listing every page (shared by
 * concurrent callers), the schema cache, re-listing on `list_changed` (and the 2026-07-28
 * `subscriptions/listen` stream that carries it), and the agent-facing descriptors.
 */
export class ToolCatalog {
  readonly #host: ToolCatalogHost;
  readonly #options: ToolCatalogOptions;
  /** The listing every caller shares (single flight), until invalidated. */
  #tools: SharedOperation<McpToolDescriptor[]> | undefined;
  #lastRunContext: unknown;
  /** The 2026-07-28 `subscriptions/listen` stream that carries `list_changed`. */
  #subscription: Promise<ClosableStream | undefined> | undefined;
  /** The timer that opens {@link #subscription} a turn after a listing (see `#listenForChanges`). */
  #listenSoon: ReturnType<typeof setTimeout> | undefined;
  #prior: McpConnectionPrior | undefined;
  /** The schema cache key and `storedAt` of the listing held in {@link #tools}. */
  #held: { key: string; storedAt: number } | undefined;
  /** Stops the schema cache's change calls (a cache with `watch` only). */
  #unwatchCache: (() => void) | undefined;

  constructor(host: ToolCatalogHost, options: ToolCatalogOptions) {
    this.#host = host;
    this.#options = options;
  }

  /** What the schema cache showed about the server before it connected: skips the era probe. */
  get prior(): McpConnectionPrior | undefined {
    return this.#prior;
  }

  /** The run context of the last listing (a `list_changed` re-listing and reconnects use it). */
  get lastRunContext(): unknown {
    return this.#lastRunContext;
  }

  /**
   * Every tool as agent tools: from the schema cache when fresh, else listed (every page) and
   * cached. Concurrent callers share one listing; `signal` stops only this caller's wait.
   *
   * @param abortError Makes the error this caller rejects with when `signal` aborts.
   * @throws What the listing throws, or `abortError(signal)`.
   */
  async list(
    runContext: unknown,
    signal: AbortSignal | undefined,
    abortError: (signal: AbortSignal) => Error,
  ): Promise<McpToolDescriptor[]> {
    this.#lastRunContext = runContext;
    const listing = (this.#tools ??= this.#shareListing(runContext, false));
    return await listing.wait(signal, abortError);
  }

  /** Forgets the listing (memory and schema cache); the next {@link list} asks the server. */
  async invalidate(options: { signal?: AbortSignal; runContext?: unknown } = {}): Promise<void> {
    this.#tools = undefined;
    const cache = this.#options.schemaCache;
    if (cache === undefined) return;
    const key = await this.#cacheKey(options.runContext);
    await this.#tryCache(() => cache.delete(key, options), options.signal);
  }

  /** The server's tools changed: list every page again, replace the tools, refresh the cache. */
  async refresh(): Promise<void> {
    const refreshed = this.#shareListing(this.#lastRunContext, true);
    this.#tools = refreshed;
    try {
      await refreshed.promise;
    } catch (error) {
      this.#host.refreshFailed(error);
    }
  }

  /**
   * Lists every page again (as {@link refresh}) and returns `name` (the server's own name) as
   * now listed: `undefined` when it is gone or the listing failed (reported as for `refresh`).
   */
  async relist(name: string): Promise<McpToolTarget | undefined> {
    await this.refresh();
    const tools = await this.#tools?.promise.catch(() => undefined);
    const tool = tools?.find((candidate) => candidate.originalName === name);
    if (tool === undefined) return undefined;
    return {
      name: tool.originalName,
      inputSchema: tool.inputSchema,
      ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
    };
  }

  /**
   * Forgets the listing in memory and ends the `list_changed` stream (the connection it ran on
   * is going away). Never rejects.
   */
  async reset(): Promise<void> {
    clearTimeout(this.#listenSoon);
    this.#listenSoon = undefined;
    const subscription = this.#subscription;
    this.#subscription = undefined;
    this.#tools = undefined;
    this.#held = undefined;
    this.#unwatchCache?.();
    this.#unwatchCache = undefined;
    await (await subscription?.catch(() => undefined))?.close().catch(() => undefined);
  }

  /** Starts a listing with its own signal; forgotten when it fails or every waiter gave up. */
  #shareListing(runContext: unknown, refresh: boolean): SharedOperation<McpToolDescriptor[]> {
    const forget = (): void => {
      if (this.#tools === listing) this.#tools = undefined;
    };
    const listing = new SharedOperation(
      (signal) =>
        this.#load(runContext, signal, refresh).catch((error: unknown) => {
          forget();
          throw error;
        }),
      forget,
    );
    return listing;
  }

  async #load(
    runContext: unknown,
    signal: AbortSignal | undefined,
    refresh: boolean,
  ): Promise<McpToolDescriptor[]> {
    const cache = this.#options.schemaCache;
    const key = cache === undefined ? undefined : await this.#cacheKey(runContext);
    if (cache !== undefined && key !== undefined && !refresh) {
      const entry = await this.#tryCache(
        () => cache.get(key, signal === undefined ? {} : { signal }),
        signal,
      );
      if (entry !== undefined) {
        this.#hold(cache, key, entry.storedAt);
        this.#rememberPrior(entry);
        const tools = this.#describe(entry.tools as McpTool[]);
        this.#host.showTools(tools, entry);
        return tools;
      }
    }
    const timeoutMs = this.#options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const listing = await this.#host.use(
      runContext,
      (client) =>
        listAllTools(client, this.#host.where, signal, timeoutMs, (text) => this.#host.scrub(text)),
      signal,
    );
    const listed = this.#applyFilter(listing.tools);
    if (cache !== undefined && key !== undefined) {
      const now = Date.now();
      const info = this.#host.connectionInfo();
      const entry: SchemaCacheEntry = {
        tools: listed,
        storedAt: now,
        expiresAt: now + (listing.ttlMs ?? this.#options.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS),
      };
      if (info?.protocolEra !== undefined) entry.protocolEra = info.protocolEra;
      if (info?.protocolVersion !== undefined) entry.protocolVersion = info.protocolVersion;
      if (info?.discover !== undefined) entry.discover = info.discover;
      if (info?.serverInfo !== undefined) entry.serverInfo = info.serverInfo;
      // Held before the write, so that this cache's own change report is known as ours.
      this.#hold(cache, key, now);
      await this.#tryCache(
        () => cache.set(key, entry, signal === undefined ? {} : { signal }),
        signal,
      );
    }
    const tools = this.#describe(listed);
    this.#host.showTools(tools);
    this.#listenForChanges(runContext);
    return tools;
  }

  /**
   * Runs one schema cache operation; a failure (a Redis outage, a full IndexedDB) is reported to
   * the server's snapshot and read as a miss, so the listing goes to the server instead. The
   * caller's own abort still ends the listing.
   */
  async #tryCache<T>(
    operation: () => Promise<T>,
    signal: AbortSignal | undefined,
  ): Promise<T | undefined> {
    try {
      const result = await operation();
      this.#host.cacheFailed(undefined);
      return result;
    } catch (error) {
      if (signal?.aborted === true) throw error;
      this.#host.cacheFailed(error);
      return undefined;
    }
  }

  /** Notes the listing held, and follows the cache's changes when it reports them. */
  #hold(cache: SchemaCache, key: string, storedAt: number): void {
    this.#held = { key, storedAt };
    if (cache.watch === undefined || this.#unwatchCache !== undefined) return;
    this.#unwatchCache = cache.watch((change) => this.#cacheChanged(change));
  }

  /**
   * Another client of a shared cache changed this server's entry: a listing stored by another
   * process (it re-listed after `list_changed`) replaces the one held, read from the cache (no
   * request to the server); a deleted entry (another process's `invalidate`) drops the held
   * listing, so the next {@link list} asks again.
   */
  #cacheChanged(change: SchemaCacheChange): void {
    const held = this.#held;
    if (held === undefined || this.#tools === undefined) return;
    if (change.kind !== 'clear' && change.key !== held.key) return;
    if (change.kind === 'set' && change.storedAt === held.storedAt) return; // the listing held
    this.#held = undefined;
    this.#tools = undefined;
    if (change.kind !== 'set') return;
    const reloaded = this.#shareListing(this.#lastRunContext, false);
    this.#tools = reloaded;
    reloaded.promise.catch((error: unknown) => this.#host.refreshFailed(error));
  }

  /**
   * Modern-era servers push no unsolicited notifications: `list_changed` arrives on a
   * `subscriptions/listen` stream (2026-07-28), opened once per server unless long-lived
   * streams are disabled. Its notifications reach the same handler as the 2025 ones.
   *
   * The stream opens a turn after the listing (a zero-delay timer), not with it: a client that
   * lists once and closes right away (a script, a cold start that needed only the tools) then
   * never opens it, nor cancels it at close (a `subscriptions/listen` POST and a
   * `notifications/cancelled` saved), and the
   * listing's caller is not slowed by it. A change before the stream is acknowledged is missed
   * either way.
   */
  #listenForChanges(runContext: unknown): void {
    if (this.#subscription !== undefined || this.#listenSoon !== undefined) return;
    if (this.#options.disableStandaloneSse === true) return;
    if (this.#host.connectionInfo()?.protocolEra !== 'modern') return;
    this.#listenSoon = setTimeout(() => {
      this.#listenSoon = undefined;
      if (this.#subscription !== undefined) return;
      this.#subscription = this.#host
        .openLongLived(() =>
          this.#host.use(runContext, (client) => client.listen({ toolsListChanged: true })),
        )
        .catch(
          () => undefined, // a server without subscriptions: listings stay as they are until invalidate()
        );
    }, 0);
  }

  #applyFilter(tools: McpTool[]): McpTool[] {
    const filter = this.#options.toolFilter;
    if (filter === undefined) return tools;
    if (typeof filter === 'function') return tools.filter((tool) => filter(tool));
    return tools.filter((tool) => filter.includes(tool.name));
  }

  #describe(listed: McpTool[]): McpToolDescriptor[] {
    const { names, repeated } = toProviderToolNames(
      listed.map((tool) => tool.name),
      this.#options.toolPrefix ?? '',
    );
    // Paired by position, not looked up by name: a thousand-tool listing pays for every lookup.
    if (!repeated)
      return listed.map((tool, index) => this.#toAgentTool(names[index] as string, tool));
    // A name the server listed twice has one provider name: one tool, the later listing of it,
    // in the place of the first.
    const byProviderName = new Map<string, McpTool>();
    listed.forEach((tool, index) => byProviderName.set(names[index] as string, tool));
    return Array.from(byProviderName, ([safeName, tool]) => this.#toAgentTool(safeName, tool));
  }

  #toAgentTool(safeName: string, listed: McpTool): McpToolDescriptor {
    const outputSchema = listed.outputSchema as Record<string, unknown> | undefined;
    const target: McpToolTarget = {
      name: listed.name,
      inputSchema: listed.inputSchema as Record<string, unknown>,
      ...(outputSchema === undefined ? {} : { outputSchema }),
    };
    const taskSupport = (listed as { execution?: { taskSupport?: unknown } }).execution
      ?.taskSupport;
    if (taskSupport === 'optional' || taskSupport === 'required') target.taskSupport = taskSupport;
    const ui = readToolUi(listed);
    const resourceUri = ui?.resourceUri;
    const tool: McpToolDescriptor = {
      name: safeName,
      originalName: listed.name,
      server: this.#host.name,
      // Server text the model reads: secrets this client sent are taken out.
      description: this.#host.scrub(listed.description ?? listed.title ?? ''),
      inputSchema: listed.inputSchema as Record<string, unknown>,
      execute: async (args, context): Promise<ToolOutput | ToolInterruptResult> => {
        const result = await this.#host.execute(
          target,
          (args ?? {}) as Record<string, unknown>,
          context,
        );
        // The view travels with the output into history, so a reopened thread re-mounts it.
        return resourceUri === undefined || isToolInterruptResult(result)
          ? result
          : { ...result, ui: { resourceUri } };
      },
    };
    if (ui !== undefined) tool.ui = ui;
    const title = listed.title ?? listed.annotations?.title;
    if (title !== undefined) tool.title = title;
    if (outputSchema !== undefined) tool.outputSchema = outputSchema;
    if (target.taskSupport !== undefined) tool.taskSupport = target.taskSupport;
    if (listed.annotations !== undefined) tool.annotations = listed.annotations as ToolAnnotations;
    if (matches(this.#options.deferredTools, listed.name)) tool.deferred = true;
    if (matches(this.#options.approvalRequiredTools, listed.name)) tool.needsApproval = true;
    return tool;
  }

  #rememberPrior(entry: SchemaCacheEntry): void {
    if (this.#host.hasConnection() || entry.protocolEra === undefined) return;
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
      url: this.#host.url ?? `custom://${encodeURIComponent(this.#host.name)}`,
      transport: this.#options.transport ?? 'streamable-http',
      ...(Array.isArray(filter) ? { toolFilter: filter as readonly string[] } : {}),
      ...(this.#options.toolPrefix === undefined ? {} : { toolPrefix: this.#options.toolPrefix }),
      ...(headers === undefined ? {} : { headers }),
    });
  }
}

function matches(list: ToolNameList | undefined, name: string): boolean {
  return list === '*' || (list !== undefined && list.includes(name));
}
