/**
 * Stable string codes for every failure class Switchboard reports. Branch on `code`, never on
 * `message` (messages are for people and may change).
 *
 * Two codes say opposite things about a request that failed:
 * - `connection_refused`: the server could not be reached; nothing was delivered, so the request
 *   can be retried safely.
 * - `outcome_unknown`: a tool call was sent and its answer was lost (the connection dropped, the
 *   server died after receiving it, the event stream carrying the answer was cut). The tool may
 *   or may not have run. Do not retry a call with side effects blindly: check its effect first,
 *   or ask the user (a read-only or idempotent tool may be retried).
 */
export type SwitchboardErrorCode =
  | 'connection_refused'
  | 'connection_lost'
  | 'outcome_unknown'
  | 'connection_closed'
  | 'http_status'
  | 'needs_auth'
  | 'unsupported_protocol_version'
  | 'invalid_response'
  | 'timeout'
  | 'aborted'
  | 'mcp_error'
  | 'tool_not_found'
  | 'invalid_tool_arguments'
  | 'tool_execution_failed'
  | 'model_error'
  | 'max_turns_exceeded'
  | 'invalid_input'
  | 'run_in_progress'
  | 'history_error'
  | 'hook_failed'
  | 'unknown_call_id'
  | 'invalid_resolution'
  | 'not_paused'
  /**
   * Another client (tab, process, `Agent` instance) claimed the run first: of two resumes of one
   * paused run, the second ends with it, having run nothing.
   */
  | 'run_claimed';

/**
 * The one error type Switchboard throws (DESIGN.md §7). `code` names the failure class; the
 * native `cause` carries the underlying error when there is one.
 *
 * Messages never contain header values or tokens: callers may log them as they are.
 */
export class SwitchboardError extends Error {
  /** The failure class, stable across releases. */
  readonly code: SwitchboardErrorCode;
  /** Extra machine-readable facts, such as `{ status: 404 }` for `http_status`. */
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(
    code: SwitchboardErrorCode,
    message: string,
    options?: { cause?: unknown; details?: Record<string, unknown> },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SwitchboardError';
    this.code = code;
    this.details = options?.details;
  }
}

/** True when `error` is a {@link SwitchboardError}, optionally of the given `code`. */
export function isSwitchboardError(
  error: unknown,
  code?: SwitchboardErrorCode,
): error is SwitchboardError {
  return error instanceof SwitchboardError && (code === undefined || error.code === code);
}
