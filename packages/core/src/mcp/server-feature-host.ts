import type { Client } from '@modelcontextprotocol/client';
import type { ClosableStream } from './connection/tab-stream-lead.ts';

/** What the resource and prompt catalogs need of their `McpServer`. */
export interface ServerFeatureHost {
  /** The server, as errors name it. */
  readonly where: string;
  /** The server's time limit per request, in ms. */
  readonly timeoutMs: number;
  /**
   * Runs `operation` on the server's connection (connecting as needed). Its failures are
   * `SwitchboardError`s; a JSON-RPC error of the server (`mcp_error`) does not mark the server
   * as failed.
   */
  use<T>(
    runContext: unknown,
    operation: (client: Client) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T>;
  /**
   * Opens a long-lived stream: now, or once this tab leads the server's streams when tabs share
   * them (docs/architecture.md, "Many tabs, one server"). Resolves with a handle at once then.
   */
  openLongLived(
    open: () => Promise<ClosableStream | undefined>,
  ): Promise<ClosableStream | undefined>;
  /** Server text with the secrets this client sent taken out. */
  scrub(text: string): string;
  /** The connection's era, once connected. */
  protocolEra(): 'modern' | 'legacy' | undefined;
  /** Whether long-lived streams are off (`disableStandaloneSse`). */
  readonly streamsDisabled: boolean;
}

/** `signal` and the request timeout, as the SDK's request options take them. */
export function requestOptions(
  host: ServerFeatureHost,
  signal: AbortSignal | undefined,
): { signal?: AbortSignal; timeout: number } {
  return { ...(signal === undefined ? {} : { signal }), timeout: host.timeoutMs };
}
