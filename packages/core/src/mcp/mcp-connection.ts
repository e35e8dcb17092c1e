import type { Client, Transport } from '@modelcontextprotocol/client';

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
  url?: URL;
  transport: McpTransportKind;
  headers?: McpHeaders;
  fetch?: typeof fetch;
  /** Do not open the standalone GET stream (2025 era). */
  disableStandaloneSse?: boolean;
  /** Client capabilities to declare (elicitation form/url, …). */
  capabilities: Record<string, unknown>;
  /** Called with each new `Client` before it connects: register request/notification handlers. */
  setupClient(client: Client): void;
  /** Wraps the fetch used by HTTP transports (after headers are applied). */
  fetchMiddleware?: (next: typeof fetch) => typeof fetch;
  /** What a previous connection learnt (e.g. from the schema cache): skips the era probe. */
  prior?: Pick<McpConnectionInfo, 'protocolEra' | 'discover' | 'transport'>;
  /** Makes the transport for a non-HTTP server (stdio). `url` is then unused. */
  createTransport?: () => Transport;
  /** Per-request timeout for connect, in ms. Default 60 000. */
  timeoutMs?: number;
}
