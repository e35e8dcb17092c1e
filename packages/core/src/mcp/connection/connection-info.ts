/**
 * HTTP headers for every request to an MCP server: fixed, or computed per run from the run
 * context (e.g. a per-user token). Values never appear in errors, logs or cache keys.
 */
export type McpHeaders =
  | Record<string, string>
  | ((runContext: unknown) => Record<string, string> | Promise<Record<string, string>>);

/**
 * Which HTTP transport to use. `auto`: Streamable HTTP, falling back to legacy SSE. `sse` and
 * `auto` need `McpServerOptions.legacySse` (`@switchboard/core/legacy-sse`).
 */
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

/** The part of {@link McpConnectionInfo} that lets a connect skip the era probe. */
export type McpConnectionPrior = Pick<McpConnectionInfo, 'protocolEra' | 'discover' | 'transport'>;
