import type { RunStatus } from './run-status.ts';

/**
 * Stable string codes for every failure class Switchboard reports. Branch on `code`, never on
 * `message` (messages are for people and may change). What a code carries in
 * `SwitchboardError.details` is in {@link SwitchboardErrorDetails}.
 *
 * Two codes say opposite things about a request that failed:
 * - `connection_refused`: the server could not be reached; nothing was delivered, so the request
 *   can be retried safely.
 * - `outcome_unknown`: a tool call was sent and its answer was lost (the connection dropped, the
 *   server died after receiving it, the event stream carrying the answer was cut). The tool may
 *   or may not have run. Do not retry a call with side effects blindly: check its effect first,
 *   or ask the user (a read-only or idempotent tool may be retried).
 *
 * Names: a code is snake_case, and "needs auth" is spelled `needs_auth` in every new code and
 * value (`NeedsAuth` in identifiers). `McpServerStatus`'s `'needs-auth'` predates this rule and
 * stays, as do the stored chunk type `server.needs_auth` and these codes: apps and stored threads
 * already compare against them.
 */
export type SwitchboardErrorCode =
  /**
   * The server could not be reached (nothing was delivered; safe to retry). With
   * `details.reason: 'offline'` the request never left the browser (`navigator.onLine` false).
   */
  | 'connection_refused'
  /** An open connection or event stream broke. */
  | 'connection_lost'
  /** A tool call was sent and its answer lost: it may or may not have run. */
  | 'outcome_unknown'
  /** The operation needs a connection that was closed by `close()`. */
  | 'connection_closed'
  /** The server answered a non-2xx HTTP status (`details.status`). */
  | 'http_status'
  /** The user must sign in (`details.authorizationUrl`) or a sign-in failed (`details.reason`). */
  | 'needs_auth'
  /** The server speaks no protocol version this client supports. */
  | 'unsupported_protocol_version'
  /** The server's answer does not have the shape the protocol requires. */
  | 'invalid_response'
  /** A time limit ran out (`details.which`). */
  | 'timeout'
  /** The caller's `AbortSignal` aborted (or `stop()` was called). */
  | 'aborted'
  /** A JSON-RPC error from an MCP server (`details.code`), or an MCP failure of no other class. */
  | 'mcp_error'
  /** The model called a tool that does not exist. */
  | 'tool_not_found'
  /** The model's tool arguments are not valid JSON or do not match the tool's schema. */
  | 'invalid_tool_arguments'
  /** A tool threw. */
  | 'tool_execution_failed'
  /** The model provider failed (`details.status` for HTTP errors), or the run failed otherwise. */
  | 'model_error'
  /** The run reached `maxTurns` model calls without a final answer (`details.maxTurns`). */
  | 'max_turns_exceeded'
  /** An argument given to Switchboard is invalid. */
  | 'invalid_input'
  /** The thread already has a run in progress. */
  | 'run_in_progress'
  /** A history store (memory, IndexedDB, JSONL) failed to read or write runs and threads. */
  | 'history_error'
  /**
   * Any other storage failed: OAuth credential and flow stores (IndexedDB, sessionStorage,
   * credential files). Distinct from `history_error` so that a sign-in problem is never
   * reported as a lost conversation.
   */
  | 'storage_error'
  /** A hook (`beforeToolCall`, `afterToolCall`, …) threw. */
  | 'hook_failed'
  /** No interrupt of that call id is waiting (`details.callId`). */
  | 'unknown_call_id'
  /** A resolution does not match what the interrupt asked for (`details.callId`). */
  | 'invalid_resolution'
  /** `resume` or `resolve` was called on a thread that is not paused. */
  | 'not_paused'
  /**
   * Another client (tab, process, `Agent` instance) claimed the run first: of two resumes of one
   * paused run, the second ends with it, having run nothing (`details.runId`, `details.status`).
   */
  | 'run_claimed';

/**
 * Why an interactive authorization failed, in `SwitchboardError.details.reason` of its
 * `needs_auth` error:
 * - `denied`: the authorization server answered with an OAuth `error` (RFC 6749 §4.1.2.1).
 * - `closed`: the user closed the popup first.
 * - `state_mismatch`: the answer's `state` is not the one this provider issued (RFC 6749 §10.12).
 * - `timeout`: no answer in time.
 * - `invalid_response`: the answer carried neither `code` nor `error`.
 * - `open_failed`: the system browser could not be opened (Node).
 */
export type AuthorizationFailureReason =
  'denied' | 'closed' | 'state_mismatch' | 'timeout' | 'invalid_response' | 'open_failed';

/**
 * What `SwitchboardError.details` holds, per code: after `isSwitchboardError(error, code)`,
 * `error.details` has this type (or is `undefined`). Codes not listed carry no details.
 *
 * Fields are optional where an error is rebuilt from another error's details (a scrubbed or
 * wrapped copy), whose shape the compiler cannot see; Switchboard sets them as documented.
 */
export interface SwitchboardErrorDetails {
  /**
   * `reason: 'offline'`: the browser was offline (`navigator.onLine === false`), so the request
   * to `host` was never sent — the server is not to blame. Absent for a server that refused.
   */
  connection_refused: { reason?: 'offline'; host?: string };
  /**
   * The HTTP status; `hint` names a known cause the message explains; `body` is an excerpt of
   * the response body (whitespace collapsed, at most 300 characters), when it had one.
   */
  http_status: { status?: number; hint?: 'expose-mcp-session-id'; body?: string };
  /**
   * `authorizationUrl`: where the user signs in (an MCP server's first sign-in). `reason`: why an
   * interactive authorization failed; with `denied`, the server's OAuth `error` and
   * `errorDescription` (redacted: never a code or token).
   */
  needs_auth: {
    authorizationUrl?: string;
    reason?: AuthorizationFailureReason;
    error?: string;
    errorDescription?: string;
  };
  /** The JSON-RPC error code the MCP server answered with. */
  mcp_error: { code: number };
  /** The JSON-RPC error code the MCP server answered with. */
  unsupported_protocol_version: { code: number };
  /** The authorization server whose metadata was refused. */
  invalid_response: { issuer: string };
  /**
   * Which limit ran out: a model call's `request` or `idle` timeout (with `timeoutMs`), or a
   * tool call's `idle` or `total` limit.
   */
  timeout: { which: 'request' | 'idle' | 'total'; timeoutMs?: number };
  /** The tool whose answer was lost, and the code of the failure that lost it. */
  outcome_unknown: { tool: string; reason: SwitchboardErrorCode };
  /**
   * What the model provider said, for retries (see `ModelRetryPolicy`): `status` is the HTTP
   * status of an error answer; `retryAfterMs` the wait it asked for (`retry-after-ms` or
   * `Retry-After`, seconds or an HTTP date), in ms; `overloaded` is true when it said it is
   * overloaded or the model unavailable (Anthropic 529 `overloaded_error`, an "overloaded" or
   * "unavailable" error message); `transient` is true for a failure of the connection or the
   * stream rather than an answer (refused, reset, cut before the final event, an error event
   * mid-stream).
   */
  model_error: {
    status?: number;
    retryAfterMs?: number;
    overloaded?: boolean;
    transient?: boolean;
  };
  /**
   * `transient`: the store wrote nothing and the same call may succeed later (no connection
   * within its time limit, a lock wait or a conflict the database rolled back), so a caller
   * that can wait — a durable engine's step retry — tries again instead of ending the run.
   */
  history_error: { transient?: boolean };
  /** The run's `maxTurns`. */
  max_turns_exceeded: { maxTurns: number };
  /**
   * What was invalid (an error name). A refused attachment (docs/conversations.md,
   * "Attachments") has `reason` `attachment_too_large`, `attachment_type_not_accepted`,
   * `attachment_type_unknown` or `attachments_not_kept`, and `attachment`: the file's `name`,
   * `mimeType` and `size` (bytes), the limit it broke (`maxBytes`) and the refusing `model`
   * (`provider/modelId`).
   */
  invalid_input: {
    reason: string;
    attachment?: {
      name: string;
      mimeType: string;
      size: number;
      maxBytes?: number;
      model?: string;
    };
  };
  /** The call id that was answered. */
  unknown_call_id: { callId: string };
  /** The call id that was answered. */
  invalid_resolution: { callId: string };
  /** The claimed run, and its status in the store now (`undefined` when it is gone). */
  run_claimed: { runId: string; status: RunStatus | undefined };
}

/**
 * The `error.code` of an error {@link ToolOutput} — what the model (and the UI) reads when a
 * tool call did not succeed. Build such outputs with `toolError()` (`tools/tool-errors.ts`),
 * which also holds the canonical texts.
 *
 * - the outcome of the human-in-the-loop: `rejected` (approval refused), `cancelled` (dismissed,
 *   or the run was stopped before the call finished), `declined` (an elicitation declined),
 *   `unanswered` (the user moved on from a paused call);
 * - the run's end: `failed` (the run failed before the call finished);
 * - tool-side failures: `hook_failed`, `invalid_structured_content`, `input_rounds_exceeded`,
 *   `unsupported_input_request`, `invalid_input_request` (an MRTR elicitation request whose
 *   `requestedSchema` is not an object schema, …), and every {@link SwitchboardErrorCode} a tool call can end
 *   with (`tool_not_found`, `invalid_tool_arguments`, `tool_execution_failed`, `timeout`,
 *   `outcome_unknown`, `needs_auth`, `mcp_error`, …);
 * - a `number`: the JSON-RPC error code an MCP server answered with.
 *
 * These are the spellings stored threads already carry; they never change.
 */
export type ToolErrorCode =
  | 'rejected'
  | 'cancelled'
  | 'declined'
  | 'unanswered'
  | 'failed'
  | 'invalid_structured_content'
  | 'input_rounds_exceeded'
  | 'unsupported_input_request'
  | 'invalid_input_request'
  | SwitchboardErrorCode
  | number;
