import type { ServerResponse } from 'node:http';

/** One HTTP request the demo server received, for assertions and the playground's log view. */
export interface RequestLogEntry {
  /** HTTP method (`GET`, `POST`, `DELETE`, `OPTIONS`). */
  method: string;
  /** URL path without the query, e.g. `/legacy/mcp`. */
  path: string;
  /** JSON-RPC method of the (first) message in a POST body, e.g. `tools/list`. */
  rpcMethod?: string;
  /** `Mcp-Session-Id` header, or the `sessionId` query parameter on `/legacy/messages`. */
  sessionId?: string;
  /**
   * HTTP status, set when the response headers go out (0 until then, and for a request whose
   * connection closed before any answer).
   */
  status: number;
  /** Milliseconds since the Unix epoch when the request arrived. */
  receivedAt: number;
}

/**
 * Keeps `entry.status` in step with the response: set when `writeHead` runs (so a long-lived SSE
 * stream is logged with its status while still open) and again when the response finishes.
 */
export function trackResponseStatus(response: ServerResponse, entry: RequestLogEntry): void {
  const writeHead = response.writeHead;
  response.writeHead = function writeHeadAndLog(
    this: ServerResponse,
    ...parameters: Parameters<ServerResponse['writeHead']>
  ): ServerResponse {
    const result = writeHead.apply(this, parameters);
    entry.status = this.statusCode;
    return result;
  } as ServerResponse['writeHead'];
  const settle = (): void => {
    if (response.headersSent) entry.status = response.statusCode;
  };
  response.on('finish', settle);
  response.on('close', settle);
}

/**
 * Cuts the response if it turns out to be an SSE stream: when its first body bytes go out (via
 * `write`, or `end` for a body the adapter buffered) the headers are flushed and the socket is
 * destroyed instead, so the client sees a stream that breaks before its first event.
 * `shouldCut` is asked at that moment (it consumes the one-shot fault).
 */
export function cutEventStream(response: ServerResponse, shouldCut: () => boolean): void {
  const write = response.write;
  const end = response.end;
  let decided = false;

  /** True when this body chunk is the first of an SSE response that must be cut. */
  function cutsHere(target: ServerResponse, chunk: unknown): boolean {
    if (decided || chunk === undefined || chunk === null || typeof chunk === 'function') {
      return false;
    }
    decided = true;
    const contentType = String(target.getHeader('content-type') ?? '');
    if (!contentType.includes('text/event-stream') || !shouldCut()) return false;
    target.flushHeaders();
    target.socket?.destroySoon();
    return true;
  }

  response.write = function writeOrCut(
    this: ServerResponse,
    ...parameters: Parameters<ServerResponse['write']>
  ): boolean {
    if (cutsHere(this, parameters[0])) return false;
    return (write as (...values: unknown[]) => boolean).apply(this, parameters);
  } as ServerResponse['write'];
  response.end = function endOrCut(
    this: ServerResponse,
    ...parameters: Parameters<ServerResponse['end']>
  ): ServerResponse {
    if (cutsHere(this, parameters[0])) return this;
    return (end as (...values: unknown[]) => ServerResponse).apply(this, parameters);
  } as ServerResponse['end'];
}
