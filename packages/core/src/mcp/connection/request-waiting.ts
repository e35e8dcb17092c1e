/**
 * Default of `McpServerOptions.waitingNoticeMs`: how long an MCP request may wait for response
 * headers before the server's snapshot says it waits, in ms (as the model's `waitingNoticeMs`).
 */
export const DEFAULT_MCP_WAITING_NOTICE_MS = 4_000;

/**
 * An MCP request that has had no response headers for `waitingNoticeMs`: most often it has not
 * left the browser, queued behind connections other tabs or streams hold (a browser opens at
 * most 6 HTTP/1.1 connections per host). It keeps waiting, up to its own time limit.
 */
export interface McpRequestWaiting {
  /** The JSON-RPC method (`tools/call`, `tools/list`, …). */
  method: string;
  /** For `tools/call`: the model's call id (`ToolContext.callId`) or the direct call's. */
  callId?: string;
  /** `host[:port]` the request goes to. */
  host: string;
  /** When it started waiting, ms since the epoch. */
  since: number;
}

/** Where a session's fetch reports requests that wait for headers (see {@link watchResponseStart}). */
export interface RequestWaitingWatch {
  /** Wait before reporting, in ms. */
  noticeMs: number;
  /** The request has had no response headers for `noticeMs`. */
  onWaiting(waiting: McpRequestWaiting): void;
  /** That request got its headers, failed or was aborted (only after `onWaiting`). */
  onStarted(waiting: McpRequestWaiting): void;
}

/**
 * Starts the "no response headers yet" clock of one request; call the returned function when
 * the headers arrived (or the request failed). Reports through `watch` only when the clock ran
 * out first, and then always reports the end.
 *
 * @param describe - the request, asked only when the clock runs out (so that a request answered
 *   in time is never described); undefined: nobody waits on it, nothing is reported.
 */
export function watchResponseStart(
  watch: RequestWaitingWatch,
  describe: () => Omit<McpRequestWaiting, 'since'> | undefined,
): () => void {
  let waiting: McpRequestWaiting | undefined;
  const timer = setTimeout(() => {
    const request = describe();
    if (request === undefined) return;
    waiting = { ...request, since: Date.now() };
    watch.onWaiting(waiting);
  }, watch.noticeMs);
  return () => {
    clearTimeout(timer);
    if (waiting === undefined) return;
    const ended = waiting;
    waiting = undefined;
    watch.onStarted(ended);
  };
}
