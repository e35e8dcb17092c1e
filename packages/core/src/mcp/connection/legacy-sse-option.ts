import type { OAuthClientProvider, Transport } from '@modelcontextprotocol/client';
import { SwitchboardError } from '../../errors/switchboard-error.ts';
import type { McpTransportKind } from './connection-info.ts';

/** What a {@link LegacySseTransportFactory} is given for one session. */
export interface LegacySseTransportOptions {
  /**
   * The session's fetch, for the event stream GET and every message POST: it applies the
   * server's `headers` and `fetchMiddleware` and records secrets for scrubbing. Use it, not the
   * global `fetch`.
   */
  fetch: typeof fetch;
  /** The server's OAuth provider (`McpServerOptions.authProvider`), when it has one. */
  authProvider?: OAuthClientProvider;
}

/**
 * Makes the legacy HTTP+SSE transport (MCP 2024-11-05) for one session on `url`, the event
 * stream URL. `legacySseTransport` from `@switchboard/core/legacy-sse` is the one to pass as
 * `McpServerOptions.legacySse`. A type only: naming it keeps the SDK's `SSEClientTransport`
 * (and the `eventsource` package it pulls in) out of the root entry.
 */
export type LegacySseTransportFactory = (url: URL, options: LegacySseTransportOptions) => Transport;

/** The line an app adds to reach legacy SSE servers; every message about it quotes it. */
const LEGACY_SSE_IMPORT = "import { legacySseTransport } from '@switchboard/core/legacy-sse'";

/**
 * The error for a connection that may need legacy HTTP+SSE but was given no factory: it names
 * the import and the option, since the fix is two lines in the app.
 */
export function missingLegacySseError(
  where: string,
  transport: McpTransportKind,
): SwitchboardError {
  const why =
    transport === 'sse'
      ? "transport 'sse' (legacy HTTP+SSE, 2024-11-05)"
      : "transport 'auto' (which falls back to legacy HTTP+SSE)";
  return new SwitchboardError(
    'invalid_input',
    `${where}: ${why} needs the legacy SSE transport, a separate import that keeps the ` +
      `eventsource package out of apps that do not use it. Add \`${LEGACY_SSE_IMPORT}\` and ` +
      'pass `legacySse: legacySseTransport` in the server options.',
  );
}

/**
 * Checks, when a server is set up, that `sse` and `auto` come with a legacy SSE factory (a
 * custom transport needs none: it never speaks HTTP).
 *
 * @throws SwitchboardError `invalid_input` (see {@link missingLegacySseError}).
 */
export function checkLegacySseOption(options: {
  where: string;
  transport: McpTransportKind;
  custom: boolean;
  legacySse: LegacySseTransportFactory | undefined;
}): void {
  if (options.custom || options.transport === 'streamable-http') return;
  if (options.legacySse === undefined) {
    throw missingLegacySseError(options.where, options.transport);
  }
}
