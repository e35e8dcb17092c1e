import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Tool as McpTool } from '@modelcontextprotocol/client';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import type { ToolOutput } from '../items.ts';
import type { ToolAnnotations } from '../tools/tool-annotations.ts';
import type { Tool, ToolProgress } from '../tools/tool-types.ts';
import { mapCallToolResult, type CallToolResultLike } from './map-call-tool-result.ts';
import { mapProviderToolNames } from './provider-tool-names.ts';
import { describeServer, toMcpError } from './to-mcp-error.ts';

/** HTTP headers for every request to the server, or a function that computes them. */
export type McpHeaders = Record<string, string> | (() => Record<string, string>);

/** Options of {@link mcpServer}. */
export interface McpServerOptions {
  /** The Streamable HTTP endpoint, e.g. `http://127.0.0.1:3001/mcp`. */
  url: string | URL;
  /** Shown in UIs and errors, and set as `Tool.server`. Default: the URL's host. */
  name?: string;
  /**
   * Sent on every HTTP request (POST, GET stream, DELETE). Values never appear in errors or logs.
   */
  headers?: McpHeaders;
  /** Prepended to every tool name the model sees (then made provider-safe). Default none. */
  toolPrefix?: string;
  /** Per-request timeout in ms; progress notifications reset it. Default 60 000. */
  timeoutMs?: number;
  /** The `fetch` to use; default the global one. */
  fetch?: typeof fetch;
}

/** Where the connection stands. */
export type McpServerStatus = 'idle' | 'connecting' | 'connected' | 'error' | 'closed';

/** A stable snapshot of an {@link McpServer}'s state, for `useSyncExternalStore`. */
export interface McpServerSnapshot {
  status: McpServerStatus;
  /** Set when `status` is `error`. */
  error?: SwitchboardError;
  /** `modern` (2026-07-28, no sessions) or `legacy` (`initialize` era), once connected. */
  protocolEra?: 'modern' | 'legacy';
  protocolVersion?: string;
  serverInfo?: { name: string; version: string };
  /** Provider-facing tools, once listed. */
  tools?: readonly Tool[];
}

/** A tool as the server listed it, with the provider-safe name it is offered under. */
export interface McpToolDescriptor extends Tool {
  /** The server's own name for the tool, used in `tools/call`. */
  originalName: string;
  server: string;
}

const CLIENT_INFO = { name: 'switchboard', version: '0.1.0' };
const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * One remote MCP server as a toolset for an {@link Agent} (DESIGN.md §3), on
 * `@modelcontextprotocol/client` v2 with `versionNegotiation: { mode: 'auto' }`: it speaks the
 * 2026-07-28 revision and falls back to `initialize` (2025-11-25 … 2025-03-26) on its own.
 *
 * Connection is lazy and single-flight: the first `listTools` / `callTool` connects.
 */
export class McpServer {
  readonly name: string;
  readonly url: URL;
  readonly #options: McpServerOptions;
  readonly #where: string;
  #connection: Promise<{ client: Client; transport: StreamableHTTPClientTransport }> | undefined;
  #tools: Promise<McpToolDescriptor[]> | undefined;
  #snapshot: McpServerSnapshot = { status: 'idle' };
  readonly #listeners = new Set<() => void>();

  constructor(options: McpServerOptions) {
    try {
      this.url = new URL(options.url);
    } catch (error) {
      throw new SwitchboardError(
        'invalid_input',
        `Not a valid MCP server URL: ${String(options.url)}`,
        {
          cause: error,
        },
      );
    }
    if (this.url.protocol !== 'http:' && this.url.protocol !== 'https:') {
      throw new SwitchboardError(
        'invalid_input',
        `MCP server URLs must be http(s), got ${this.url.protocol}`,
      );
    }
    this.name = options.name ?? this.url.host;
    this.#options = options;
    this.#where = describeServer(this.name, this.url);
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
   * Connects (once; later calls share the same attempt). After a failure the next call tries
   * again.
   *
   * @throws SwitchboardError `connection_refused`, `http_status`, `unsupported_protocol_version`,
   *   `invalid_response`, `timeout` or `aborted`.
   */
  async connect(options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.#connect(options.signal);
  }

  /**
   * Lists every tool (following every `nextCursor` page) and returns them as agent tools with
   * provider-safe names (DESIGN.md §5). The listing is kept until `close()`.
   */
  async listTools(options: { signal?: AbortSignal } = {}): Promise<McpToolDescriptor[]> {
    this.#tools ??= this.#listTools(options.signal).catch((error: unknown) => {
      this.#tools = undefined;
      throw error;
    });
    return await this.#tools;
  }

  /**
   * Calls a tool by the server's own name. Tool errors (`isError: true`) and JSON-RPC errors
   * come back as error outputs, not exceptions; only connection-level failures throw.
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: { signal?: AbortSignal; onProgress?: (progress: ToolProgress) => void } = {},
  ): Promise<ToolOutput> {
    const { client } = await this.#connect(options.signal);
    try {
      const result = await client.callTool(
        { name, arguments: args },
        {
          ...(options.signal === undefined ? {} : { signal: options.signal }),
          timeout: this.#options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
          resetTimeoutOnProgress: true,
          onprogress: (progress) => {
            const report: ToolProgress = { progress: progress.progress };
            if (progress.total !== undefined) report.total = progress.total;
            if (progress.message !== undefined) report.message = progress.message;
            options.onProgress?.(report);
          },
        },
      );
      return mapCallToolResult(result as CallToolResultLike);
    } catch (error) {
      const failure = toMcpError(error, this.#where, options.signal);
      if (failure.code === 'mcp_error') {
        return {
          text: failure.message,
          isError: true,
          error: {
            code: (failure.details?.code as number | undefined) ?? 'mcp_error',
            message: failure.message,
          },
        };
      }
      throw failure;
    }
  }

  /** Ends the session with an HTTP DELETE (best effort) and closes the connection. Idempotent. */
  async close(): Promise<void> {
    const connection = this.#connection;
    this.#connection = undefined;
    this.#tools = undefined;
    if (connection !== undefined) {
      try {
        const { client, transport } = await connection;
        // A server may refuse DELETE (405) or have forgotten the session: closing goes on anyway.
        await transport.terminateSession().catch(() => undefined);
        await client.close();
      } catch {
        // The connection never came up: nothing to end.
      }
    }
    this.#update({ status: 'closed' });
  }

  #connect(
    signal?: AbortSignal,
  ): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    this.#connection ??= this.#open(signal).catch((error: unknown) => {
      this.#connection = undefined;
      const failure = toMcpError(error, this.#where, signal);
      this.#update({ status: 'error', error: failure });
      throw failure;
    });
    return this.#connection;
  }

  async #open(
    signal?: AbortSignal,
  ): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    this.#update({ status: 'connecting' });
    const client = new Client(CLIENT_INFO, {
      capabilities: {},
      versionNegotiation: { mode: 'auto' },
    });
    const transport = new StreamableHTTPClientTransport(this.url, {
      fetch: this.#fetchWithHeaders(),
    });
    await client.connect(transport, signal === undefined ? undefined : { signal });
    const serverVersion = client.getServerVersion();
    const era = client.getProtocolEra();
    const version = client.getNegotiatedProtocolVersion();
    this.#update({
      status: 'connected',
      ...(era === undefined ? {} : { protocolEra: era }),
      ...(version === undefined ? {} : { protocolVersion: version }),
      ...(serverVersion === undefined
        ? {}
        : { serverInfo: { name: serverVersion.name, version: serverVersion.version } }),
    });
    return { client, transport };
  }

  async #listTools(signal?: AbortSignal): Promise<McpToolDescriptor[]> {
    const { client } = await this.#connect(signal);
    let listed: McpTool[];
    try {
      // Without a cursor the client follows every nextCursor page (capped at 64 pages).
      listed = (await client.listTools(undefined, signal === undefined ? {} : { signal })).tools;
    } catch (error) {
      throw toMcpError(error, this.#where, signal);
    }
    const names = mapProviderToolNames(
      listed.map((tool) => tool.name),
      this.#options.toolPrefix ?? '',
    );
    const byOriginal = new Map(listed.map((tool) => [tool.name, tool]));
    const tools = [...names].map(([safeName, originalName]) =>
      this.#toAgentTool(safeName, byOriginal.get(originalName) as McpTool),
    );
    this.#update({ ...this.#snapshot, tools });
    return tools;
  }

  #toAgentTool(safeName: string, listed: McpTool): McpToolDescriptor {
    const tool: McpToolDescriptor = {
      name: safeName,
      originalName: listed.name,
      server: this.name,
      description: listed.description ?? listed.title ?? '',
      inputSchema: listed.inputSchema as Record<string, unknown>,
      execute: async (args, context) =>
        await this.callTool(listed.name, (args ?? {}) as Record<string, unknown>, {
          signal: context.signal,
          onProgress: (progress) => context.reportProgress(progress),
        }),
    };
    if (listed.annotations !== undefined) tool.annotations = listed.annotations as ToolAnnotations;
    return tool;
  }

  #fetchWithHeaders(): typeof fetch {
    const baseFetch = this.#options.fetch ?? globalThis.fetch.bind(globalThis);
    const configured = this.#options.headers;
    if (configured === undefined) return baseFetch;
    return (input, init) => {
      const headers = new Headers(init?.headers);
      const extra = typeof configured === 'function' ? configured() : configured;
      for (const [key, value] of Object.entries(extra)) headers.set(key, value);
      return baseFetch(input, { ...init, headers });
    };
  }

  #update(next: McpServerSnapshot): void {
    const merged: McpServerSnapshot = { ...next };
    if (next.status === 'connecting' || next.status === 'closed') {
      delete merged.tools;
    }
    this.#snapshot = merged;
    for (const listener of this.#listeners) listener();
  }
}

/** Creates an {@link McpServer}. See {@link McpServerOptions}. */
export function mcpServer(options: McpServerOptions): McpServer {
  return new McpServer(options);
}
