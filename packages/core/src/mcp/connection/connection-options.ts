import type { Client, Transport } from '@modelcontextprotocol/client';
import type { SwitchboardError } from '../../errors/switchboard-error.ts';
import type { SecretScrubber } from '../../internal/secret-scrubber.ts';
import type { McpAuthorization } from '../mcp-authorization.ts';
import type { RequestWaitingWatch } from './request-waiting.ts';
import type { TabStreamLead } from './tab-stream-lead.ts';
import type { LegacySseTransportFactory } from './legacy-sse-option.ts';
import type {
  McpConnectionInfo,
  McpConnectionPrior,
  McpHeaders,
  McpTransportKind,
} from './connection-info.ts';

/** Options of `McpConnection`; see `McpServerOptions` for the user-facing meaning. */
export interface McpConnectionOptions {
  /** Used in error messages (with the URL's origin and path, never its query). */
  name: string;
  /**
   * The endpoint: Streamable HTTP, or for `sse` the event stream URL. In `auto` mode the legacy
   * SSE fallback uses this same URL.
   */
  url?: URL;
  transport: McpTransportKind;
  headers?: McpHeaders;
  /** The fetch that reaches the network. Default: the global `fetch` at call time. */
  fetch?: typeof fetch;
  /**
   * Do not open the standalone GET stream (2025 era). The v2 SDK has no switch for it, so the
   * GET is answered locally with a synthetic 405 (which the SDK reads as "no stream"); it never
   * reaches the network. Default false.
   */
  disableStandaloneSse?: boolean;
  /**
   * This tab's lead over the server's long-lived streams (a browser only): a 2025-era session
   * then holds its standalone GET stream only while needed (`StandaloneStreamGate`).
   */
  tabStreamLead?: TabStreamLead;
  /** Reports requests that have had no response headers for a while (HTTP transports). */
  requestWaiting?: RequestWaitingWatch;
  /** Client capabilities to declare (elicitation form/url, …). */
  capabilities: Record<string, unknown>;
  /** Called with each new `Client` before it connects: register request/notification handlers. */
  setupClient(client: Client): void;
  /**
   * Wraps the fetch used by HTTP transports (after headers are applied). Called once per session,
   * with that session's `Client` (the one `setupClient` got), so what it learns from the traffic
   * can be told apart per session.
   */
  fetchMiddleware?: (next: typeof fetch, client: Client) => typeof fetch;
  /**
   * Streamable HTTP: told of each server request (a pushed `elicitation/create`) that arrived on
   * the SSE answer of a `tools/call` or `tasks/result` POST carrying a call key
   * (`_meta[CALL_ID_META_KEY]`), with that session's `Client`, so the request can be routed to
   * its call (see `ElicitationRouter`).
   */
  onServerRequest?: (client: Client, callKey: string, serverRequestId: string | number) => void;
  /** What a previous connection learnt (e.g. from the schema cache): skips the era probe. */
  prior?: McpConnectionPrior;
  /** Makes the transport for a non-HTTP server (stdio). `url` is then unused. */
  createTransport?: () => Transport;
  /**
   * Makes the legacy HTTP+SSE transport: required with `transport` `sse` or `auto` (unless
   * `createTransport`), see `McpServerOptions.legacySse`.
   */
  legacySse?: LegacySseTransportFactory;
  /**
   * OAuth 2.1 for HTTP transports (see `McpServerOptions.authProvider`): its provider goes to the
   * SDK transports, which send its token, discover, register, refresh and start authorization;
   * its OAuth requests bypass `headers` and `fetchMiddleware`. The connection tells it which
   * transport needed authorization. None: no OAuth.
   */
  authorization?: McpAuthorization;
  /**
   * Collects the secret values requests carry, to scrub them from server text. Default: a new
   * one (pass the server's own to share it with its authorization).
   */
  scrubber?: SecretScrubber;
  /**
   * Timeout of the connect handshake (probe, `initialize`) and bound of the `DELETE` on close,
   * in ms. Default 60 000. Operations set their own request timeouts.
   */
  timeoutMs?: number;
}

/** Where an `McpConnection` stands, as of its last connect attempt. */
export type McpConnectionStatus = 'idle' | 'connecting' | 'connected' | 'error' | 'closed';

/** The observable state of an `McpConnection`: one snapshot, replaced on every change. */
export interface McpConnectionState {
  /** What is known about the server; `undefined` until the first connect succeeds. */
  info: McpConnectionInfo | undefined;
  status: McpConnectionStatus;
  /** Why the last connect failed, while `status` is `error`. */
  error: SwitchboardError | undefined;
}

/** Options of `McpConnection.use`. */
export interface McpUseOptions {
  /** Aborting rejects `use` at once with `aborted` (a shared connect goes on for others). */
  signal?: AbortSignal;
  /**
   * The operation needs the server's pushed requests to be its own (a tool call that may be
   * asked for input). Over legacy HTTP+SSE, where every server request of a session arrives on
   * one stream with nothing linking it to a call, the operation then gets a session no other
   * exclusive operation is using (another session for the same headers is opened when needed),
   * so whatever the server asks on it belongs to this operation. Other transports carry each
   * request's server requests on that request's own stream and share one session. Default false.
   */
  exclusive?: boolean;
}
