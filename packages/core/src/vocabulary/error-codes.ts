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
 * The `error.code` of an error {@link ToolOutput} — what the model (and the UI) reads when a
 * tool call did not succeed. Build such outputs with `toolError()` (`tools/tool-errors.ts`),
 * which also holds the canonical texts.
 *
 * - the outcome of the human-in-the-loop: `rejected` (approval refused), `cancelled` (dismissed,
 *   or the run was stopped before the call finished), `declined` (an elicitation declined),
 *   `unanswered` (the user moved on from a paused call);
 * - the run's end: `failed` (the run failed before the call finished);
 * - tool-side failures: `hook_failed`, `invalid_structured_content`, `input_rounds_exceeded`,
 *   `unsupported_input_request`, and every {@link SwitchboardErrorCode} a tool call can end
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
  | SwitchboardErrorCode
  | number;
