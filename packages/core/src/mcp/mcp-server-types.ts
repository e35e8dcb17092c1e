import type { OAuthClientProvider, Tool as McpTool, Transport } from '@modelcontextprotocol/client';
import type { SwitchboardError } from '../errors/switchboard-error.ts';
import type { OAuthAccountState } from '../oauth/interactive-oauth-provider.ts';
import type {
  McpConnectionInfo,
  McpHeaders,
  McpTransportKind,
} from './connection/connection-info.ts';
import type { McpRequestWaiting } from './connection/request-waiting.ts';
import type { LegacySseTransportFactory } from './connection/legacy-sse-option.ts';
import type { SchemaCache } from './schema-cache.ts';
import type { Tool } from '../tools/tool-types.ts';

/** Options of `mcpServer` (docs/architecture.md, "The life of an MCP call"). */
export interface McpServerOptions {
  /** The server's endpoint, e.g. `http://127.0.0.1:3001/mcp`. Required unless `createTransport`. */
  url?: string | URL;
  /** Shown in UIs and errors, and set as `Tool.server`. Default: the URL's host. */
  name?: string;
  /**
   * `streamable-http` (default), legacy `sse` (HTTP+SSE, 2024-11-05), or `auto`: Streamable HTTP,
   * falling back to legacy SSE when the first POST gets 400, 404 or 405. `sse` and `auto` need
   * `legacySse` (unless `createTransport`).
   */
  transport?: McpTransportKind;
  /**
   * Makes the legacy HTTP+SSE transport (2024-11-05): pass `legacySseTransport` from
   * `@switchboard/core/legacy-sse`. Required with `transport: 'sse'` or `'auto'`; unused with
   * `streamable-http` or `createTransport`. A separate import so that apps which only speak
   * Streamable HTTP do not ship the SDK's `SSEClientTransport` and the `eventsource` package
   * (about 2 KiB gzip).
   *
   * @throws SwitchboardError `invalid_input` from `mcpServer()` when `transport` is `sse` or
   *   `auto` and this is missing; the message names the import line.
   */
  legacySse?: LegacySseTransportFactory;
  /** Headers on every HTTP request (POST, GET stream, DELETE, legacy SSE); per run if a function. */
  headers?: McpHeaders;
  /** Allow-list: only these tools (by the server's names), or those the predicate keeps. */
  toolFilter?: readonly string[] | ((tool: McpTool) => boolean);
  /**
   * Prepended to every tool name the model sees (then made provider-safe, docs/architecture.md,
   * "Tool names").
   */
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
   * In a browser, share this server's long-lived streams (the 2025 standalone GET stream, the
   * 2026-07-28 `subscriptions/listen` streams for `list_changed`) with the other tabs and
   * workers of the origin that use the same URL: one of them holds the streams (a Web Lock,
   * handed to the next when its page goes away) and relays `list_changed` over a
   * `BroadcastChannel`; a 2025 session of another tab opens its GET stream only while one of
   * its requests is in flight or it has resource subscriptions. A browser opens at most 6
   * HTTP/1.1 connections per host, so without this three or more tabs on one server stall each
   * other. Ignored where there are no Web Locks (Node). Default true.
   */
  shareStreamsAcrossTabs?: boolean;
  /**
   * How long an HTTP request may wait for response headers before the snapshot lists it in
   * `waiting`, in ms. Default 4 000 (`DEFAULT_MCP_WAITING_NOTICE_MS`, as the model's
   * `waitingNoticeMs`). The request is not aborted: `timeoutMs` still ends it.
   */
  waitingNoticeMs?: number;
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
  /**
   * The largest resource body `readResource` returns with its data, in bytes (UTF-8 bytes of
   * text, decoded bytes of a `blob`); a larger one comes as `omitted: 'too_large'` with its size
   * and MIME type. Default 1 048 576 (1 MiB, `DEFAULT_MAX_RESOURCE_BYTES`).
   */
  maxResourceBytes?: number;
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
   * `McpServer.finishAuthorization` completes it with the callback's code. The OAuth
   * requests go to `fetch` without `headers`. Tokens never enter errors or the schema cache.
   *
   * With an `InteractiveOAuthProvider` (`browserOAuthProvider()`, or `nodeOAuthProvider()`
   * from `@switchboard/core/node`) the server also offers `McpServer.authorize` (the
   * "Connect" button), `McpServer.signOut` and the non-secret `account` in its snapshot,
   * finishes a redirect-flow sign-in after a page reload by itself, and an agent run that hits
   * `needs_auth` on a tool call pauses with an `authorization` interrupt instead of failing.
   */
  authProvider?: OAuthClientProvider;
  /**
   * Advertise MCP Apps (`extensions: {"io.modelcontextprotocol/ui": {mimeTypes:
   * ["text/html;profile=mcp-app"]}}`, SEP-1865 stable 2026-01-26) because this app renders the
   * server's `ui://` views (`McpAppView` from `@switchboard/react/mcp-apps`). Tools' `_meta.ui`
   * is read either way: app-only tools never reach the model. Default false.
   */
  apps?: boolean;
}

/**
 * Where the connection stands. `cached`: tools came from the schema cache, not yet connected.
 * `needs-auth`: the server wants OAuth authorization from the user (see
 * `McpServerOptions.authProvider`); `error` holds the `needs_auth` error.
 */
export type McpServerStatus =
  'idle' | 'connecting' | 'connected' | 'cached' | 'needs-auth' | 'error' | 'closed';

/** A stable snapshot of an `McpServer`'s state, for `useSyncExternalStore`. */
export interface McpServerSnapshot {
  status: McpServerStatus;
  /** Set when `status` is `error` or `needs-auth`. */
  error?: SwitchboardError;
  /**
   * The schema cache's last failure (read, write or delete), until an operation on it works
   * again. The tools were listed from the server instead; `status` is unaffected.
   */
  schemaCacheError?: SwitchboardError;
  /** `streamable-http`, `sse` or `custom`, once connected. */
  transport?: McpConnectionInfo['transport'];
  /** `modern` (2026-07-28, no sessions) or `legacy` (`initialize` era). */
  protocolEra?: 'modern' | 'legacy';
  protocolVersion?: string;
  serverInfo?: { name: string; version: string };
  /** Provider-facing tools, once listed (replaced when the server's list changes). */
  tools?: readonly McpToolDescriptor[];
  /**
   * How many times the server said its resource list changed
   * (`notifications/resources/list_changed`); absent until the first. A UI refetches when it moves.
   */
  resourceListVersion?: number;
  /** How many times the server said its prompt list changed (`notifications/prompts/list_changed`). */
  promptListVersion?: number;
  /** `elicitationId`s the server reported complete (`notifications/elicitation/complete`). */
  completedElicitations: readonly string[];
  /**
   * Whether the user is signed in to the server's authorization server, with an
   * `InteractiveOAuthProvider` (never a token). Absent without one.
   */
  account?: OAuthAccountState;
  /**
   * Requests to the server that have had no response headers for `waitingNoticeMs`, oldest
   * first; absent when none. Most often they have not left the browser: other tabs or streams
   * hold the host's connections (6 per host over HTTP/1.1). They keep waiting up to their own
   * time limits; each leaves the list when its headers arrive or it fails. A UI shows "Waiting
   * for a free connection to <host>" (on the card of the call with that `callId`).
   */
  waiting?: readonly McpRequestWaiting[];
}

/** Tool names, or `'*'` for every tool of the server. */
export type ToolNameList = readonly string[] | '*';

/** A tool as the server listed it, offered under a provider-safe name. */
export interface McpToolDescriptor extends Tool {
  /** The server's own name for the tool, used in `tools/call`. */
  originalName: string;
  server: string;
  title?: string;
  outputSchema?: Record<string, unknown>;
  /**
   * The tool's `execution.taskSupport` when it may run as an MCP task (spec 2025-11-25,
   * "Tasks"): on a 2025 connection its calls ask for a task and follow it (docs/mcp-servers.md,
   * "Tasks"). Absent for `forbidden` or unset.
   */
  taskSupport?: 'optional' | 'required';
}
