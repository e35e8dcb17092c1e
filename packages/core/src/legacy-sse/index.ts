/**
 * `@switchboard/core/legacy-sse`: the legacy HTTP+SSE transport (MCP 2024-11-05), for servers
 * that do not speak Streamable HTTP yet. A separate entry so that apps which only reach
 * Streamable HTTP servers never ship it (see {@link legacySseTransport}).
 */
import { SSEClientTransport, type Transport } from '@modelcontextprotocol/client';
import type { LegacySseTransportOptions } from '../mcp/connection/legacy-sse-option.ts';

export type {
  LegacySseTransportFactory,
  LegacySseTransportOptions,
} from '../mcp/connection/legacy-sse-option.ts';

/**
 * The legacy HTTP+SSE transport of MCP 2024-11-05: a GET event stream on `url` (e.g. `/sse`)
 * that names the endpoint for the client's POSTs, with every server message on that one
 * stream. Wraps the MCP SDK's `SSEClientTransport`.
 *
 * Pass it as `legacySse` to reach a server with `transport: 'sse'`, or with `transport: 'auto'`
 * (Streamable HTTP, falling back to this transport when the first POST gets 400, 404 or 405):
 *
 * ```ts
 * import { mcpServer } from '@switchboard/core';
 * import { legacySseTransport } from '@switchboard/core/legacy-sse';
 *
 * const server = mcpServer({ url: 'http://127.0.0.1:3001/sse', transport: 'sse', legacySse: legacySseTransport });
 * ```
 *
 * It is a separate import, not part of `@switchboard/core`, because the SDK's transport pulls in
 * the `eventsource` package (about 2 KiB gzip, plus the transport itself), which apps that only
 * use Streamable HTTP should not ship.
 *
 * `mcpServer` calls it once per session; an app has no reason to call it itself.
 *
 * @param url The event stream URL.
 * @param options `fetch`: the session's fetch (headers, middleware, secret scrubbing), used for
 *   the stream and every POST; `authProvider`: the server's OAuth provider, if any.
 * @returns A transport not yet started (the session's `Client` starts it).
 */
export function legacySseTransport(url: URL, options: LegacySseTransportOptions): Transport {
  return new SSEClientTransport(url, {
    fetch: options.fetch,
    ...(options.authProvider === undefined ? {} : { authProvider: options.authProvider }),
  });
}
