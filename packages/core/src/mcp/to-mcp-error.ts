import {
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  SseError,
  UnauthorizedError,
  UnsupportedProtocolVersionError,
} from '@modelcontextprotocol/client';
import { messageOf } from '../errors/message-of.ts';
import { SwitchboardError, isSwitchboardError } from '../errors/switchboard-error.ts';

/**
 * `data` of the JSON-RPC error response the connection layer hands the SDK when the event
 * stream that should carry a response broke before it arrived (see `McpConnection`).
 * {@link toMcpError} turns the resulting `ProtocolError` into `connection_lost`.
 */
export const CONNECTION_LOST_DATA = Object.freeze({ switchboard: 'connection_lost' });

/** Request headers every MCP server reached from a browser must allow (CORS preflight). */
const CORS_ALLOWED_HEADERS = [
  'content-type',
  'mcp-session-id',
  'mcp-protocol-version',
  'authorization',
  'last-event-id',
];
/** Extra request headers of protocol revision 2026-07-28. */
const CORS_MODERN_HEADERS = ['mcp-method', 'mcp-name'];

/** Facts about the request that make a message more helpful; never header values. */
export interface McpErrorContext {
  /** Names of the caller's own request headers (named in the CORS hint). Never values. */
  headerNames?: readonly string[];
}

/**
 * Classifies a failure talking to an MCP server into a {@link SwitchboardError} with a code per
 * failure class:
 *
 * - `aborted`: `signal` aborted (or an `AbortError`);
 * - `connection_lost`: the connection or the event stream carrying the answer broke, or the
 *   transport closed (stdio child exited) while a request was pending (a tool call that meets
 *   this is reported as `outcome_unknown` by `callMcpTool`: the server may have run it);
 * - `http_status`: the server answered a non-2xx status (`details.status`; the message and
 *   `details.body` hold a short excerpt of the body, at most 300 characters);
 * - `connection_refused`: the server could not be reached. In a browser the message adds what a
 *   server must allow for cross-origin use (CORS), since browsers report a refused connection
 *   and a CORS rejection alike as a bare `TypeError`;
 * - `invalid_response`: unparsable JSON, a non-JSON-RPC body, an unexpected content type, or a
 *   result that fails the SDK's schema;
 * - `timeout`: the SDK's request timeout fired;
 * - `unsupported_protocol_version`: no common protocol version;
 * - `needs_auth`: the server wants OAuth authorization that the `authProvider` could not
 *   supply without the user (the SDK's `UnauthorizedError`);
 *   `McpConnection` adds `details.authorizationUrl` when the user must visit one;
 * - `mcp_error`: a JSON-RPC error from the server (`details.code`), or anything else.
 *
 * `where` names the server for the message: its name and the URL without query or credentials
 * (see {@link describeServer}), so no secret reaches a message. Header values are never read.
 */
export function toMcpError(
  error: unknown,
  where: string,
  signal?: AbortSignal,
  context: McpErrorContext = {},
): SwitchboardError {
  if (isSwitchboardError(error)) return error;
  if (signal?.aborted || isAbortError(error)) {
    return new SwitchboardError('aborted', `The request to ${where} was aborted.`, {
      cause: error,
    });
  }
  // The browser was offline: the session fetch refused to send (the SDK may have wrapped it).
  const offline = findInChain(error, isOfflineRefusal);
  if (offline !== undefined) {
    return new SwitchboardError(
      'connection_refused',
      `The browser is offline; nothing was sent to ${where}.`,
      {
        cause: error,
        details: (offline as SwitchboardError<'connection_refused'>).details ?? {
          reason: 'offline',
        },
      },
    );
  }
  if (error instanceof ProtocolError && isConnectionLostData(error.data)) {
    return new SwitchboardError(
      'connection_lost',
      `The connection to ${where} broke before its answer arrived.`,
      { cause: error },
    );
  }
  if (findInChain(error, (item) => isSdkError(item, SdkErrorCode.ConnectionClosed))) {
    return new SwitchboardError(
      'connection_lost',
      `The connection to ${where} closed while a request was pending.`,
      { cause: error },
    );
  }
  if (findInChain(error, (item) => UnauthorizedError.isInstance(item))) {
    return new SwitchboardError('needs_auth', `${where} needs you to sign in.`, { cause: error });
  }
  // A JSON-RPC error the server sent: its message is the server's text, never a transport fact.
  if (error instanceof ProtocolError) {
    if (
      error instanceof UnsupportedProtocolVersionError ||
      /unsupported protocol version/i.test(error.message)
    ) {
      return new SwitchboardError(
        'unsupported_protocol_version',
        `${where} speaks no MCP protocol version this client supports: ${excerpt(error.message)}`,
        { cause: error, details: { code: error.code } },
      );
    }
    return new SwitchboardError(
      'mcp_error',
      `${where} returned error ${error.code}: ${excerpt(error.message)}`,
      { cause: error, details: { code: error.code } },
    );
  }
  const http = findHttpStatus(error);
  if (http !== undefined) {
    const body = http.body === undefined || http.body === '' ? undefined : excerpt(http.body);
    return new SwitchboardError(
      'http_status',
      `${where} answered HTTP ${http.status}${http.statusText ? ` ${http.statusText}` : ''}${body === undefined ? '' : `: ${body}`}`,
      { cause: error, details: { status: http.status, ...(body === undefined ? {} : { body }) } },
    );
  }
  // A drop first: undici wraps a connection the server reset or closed mid-request in the same
  // `TypeError: fetch failed` as a refused one; only the cause tells them apart.
  if (findInChain(error, isConnectionDrop)) {
    return new SwitchboardError(
      'connection_lost',
      `The connection to ${where} broke before its answer arrived.`,
      { cause: error },
    );
  }
  if (findInChain(error, isConnectionFailure)) {
    return new SwitchboardError('connection_refused', refusedMessage(where, context), {
      cause: error,
    });
  }
  const invalid = findInChain(error, isInvalidResponse);
  if (invalid !== undefined) {
    return new SwitchboardError(
      'invalid_response',
      `${where} sent an invalid response: ${excerpt(messageOf(invalid))}`,
      { cause: error },
    );
  }
  if (findInChain(error, (item) => isSdkError(item, SdkErrorCode.RequestTimeout))) {
    return new SwitchboardError('timeout', `${where} did not answer in time.`, { cause: error });
  }
  if (
    isSdkError(error, SdkErrorCode.EraNegotiationFailed) ||
    /unsupported protocol version|protocol version[^.]*not supported/i.test(messageOf(error))
  ) {
    return new SwitchboardError(
      'unsupported_protocol_version',
      `${where} speaks no MCP protocol version this client supports: ${excerpt(messageOf(error))}`,
      { cause: error },
    );
  }
  return new SwitchboardError('mcp_error', `${where} failed: ${excerpt(messageOf(error))}`, {
    cause: error,
  });
}

/** The session fetch's refusal to send while the browser is offline (see `throwIfOffline`). */
function isOfflineRefusal(item: unknown): boolean {
  return isSwitchboardError(item, 'connection_refused') && item.details?.reason === 'offline';
}

/** `MCP server "name" (http://host/path)` with query and credentials removed. */
export function describeServer(name: string, url: URL): string {
  return `MCP server "${name}" (${url.origin}${url.pathname})`;
}

/**
 * True when this code runs in a browser page or worker, where a failed `fetch` may be a CORS
 * rejection rather than a refused connection.
 */
export function isBrowserRuntime(): boolean {
  const scope = globalThis as { window?: unknown; document?: unknown; importScripts?: unknown };
  return (
    (typeof scope.window !== 'undefined' && typeof scope.document !== 'undefined') ||
    typeof scope.importScripts === 'function'
  );
}

function refusedMessage(where: string, context: McpErrorContext): string {
  const base = `Could not reach ${where}: the connection was refused or blocked. Is the server running?`;
  if (!isBrowserRuntime()) return base;
  const own = (context.headerNames ?? [])
    .map((name) => name.toLowerCase())
    .filter((name) => !CORS_ALLOWED_HEADERS.includes(name));
  const allowed = [...new Set([...CORS_ALLOWED_HEADERS, ...own])].join(', ');
  return (
    `${base} In a browser this is also what a CORS rejection looks like: the server may not ` +
    `allow this origin (${originOfPage()}). It must answer with Access-Control-Allow-Origin for ` +
    `this origin, allow the methods GET, POST, DELETE and the request headers ${allowed} ` +
    `(plus ${CORS_MODERN_HEADERS.join(', ')} for protocol 2026-07-28) in ` +
    'Access-Control-Allow-Headers, and expose Mcp-Session-Id in Access-Control-Expose-Headers.'
  );
}

function originOfPage(): string {
  const location = (globalThis as { location?: { origin?: unknown } }).location;
  return typeof location?.origin === 'string' ? location.origin : 'this page';
}

function isConnectionLostData(data: unknown): boolean {
  return (
    typeof data === 'object' &&
    data !== null &&
    (data as { switchboard?: unknown }).switchboard === CONNECTION_LOST_DATA.switchboard
  );
}

function isAbortError(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

function isSdkError(error: unknown, code: SdkErrorCode): boolean {
  return error instanceof SdkError && error.code === code;
}

/** The first error in `error`'s cause chain (5 deep) that `test` accepts. */
function findInChain(error: unknown, test: (item: Error) => boolean): Error | undefined {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    if (test(current)) return current;
    current = current.cause;
  }
  return undefined;
}

interface HttpFailure {
  status: number;
  statusText?: string;
  body?: string;
}

/**
 * The HTTP status of a non-2xx answer anywhere in the cause chain: `SdkHttpError` (Streamable
 * HTTP), `SseError` with a status (legacy SSE stream), or the legacy SSE transport's plain
 * `Error POSTing to endpoint (HTTP 404): …`.
 */
function findHttpStatus(error: unknown): HttpFailure | undefined {
  let found: HttpFailure | undefined;
  findInChain(error, (item) => {
    if (item instanceof SdkHttpError) {
      const text = item.data.text;
      found = {
        status: item.status,
        ...(item.statusText ? { statusText: item.statusText } : {}),
        body: typeof text === 'string' ? text : item.message,
      };
      return true;
    }
    if (item instanceof SseError && typeof item.code === 'number' && item.code >= 300) {
      found = { status: item.code, body: item.message };
      return true;
    }
    const match = /^Error POSTing to endpoint \(HTTP (\d{3})\):\s*([\s\S]*)$/.exec(item.message);
    if (match?.[1] !== undefined) {
      found = { status: Number(match[1]), body: match[2] ?? '' };
      return true;
    }
    return false;
  });
  return found;
}

function isConnectionFailure(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EHOSTUNREACH') return true;
  if (code === 'ENETUNREACH' || code === 'EAI_AGAIN') return true;
  // Browsers report refused connections and CORS failures alike as a bare TypeError; the SSE
  // transport flattens the fetch error into its message.
  if (error instanceof TypeError && /fetch|network|load failed/i.test(error.message)) {
    return !isConnectionDrop(error);
  }
  return (
    error instanceof SseError &&
    /fetch failed|failed to fetch|networkerror|load failed|ECONNREFUSED|ENOTFOUND/i.test(
      error.message,
    )
  );
}

/** A connection that was open and broke (reset, closed mid-body). */
function isConnectionDrop(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET') return true;
  return /\bterminated\b|other side closed|socket hang up|ECONNRESET|stream disconnected/i.test(
    error.message,
  );
}

function isInvalidResponse(error: Error): boolean {
  if (error instanceof SyntaxError || error.name === 'ZodError') return true;
  return (
    isSdkError(error, SdkErrorCode.InvalidResult) ||
    isSdkError(error, SdkErrorCode.ClientHttpUnexpectedContent)
  );
}

function excerpt(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
