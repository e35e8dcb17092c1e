/** A JSON-RPC request id (`id` of a request, and of the response that answers it). */
export type JsonRpcId = string | number;

/**
 * A scan of an SSE response body (the answer to one POSTed request), fed its bytes chunk by
 * chunk as they go to the reader (`watchAnswerBody`'s `onChunk`), that reports each server
 * request it carries (a message with `method` and `id`, such as a pushed `elicitation/create`)
 * to `onServerRequest`.
 *
 * Why: Streamable HTTP sends a server request on the stream of the client request it relates
 * to, and the MCP SDK's request handler does not say which stream that was; the elicitation
 * router needs it to route the request to its tool call. Only 2025-era sessions need this (the
 * 2026-07-28 revision has no server-to-client requests), so only their calls pay for the scan.
 *
 * The scan is kept cheap, since the SDK parses every message itself: only a `data` payload that
 * contains `"method"` is parsed (a response has none), and the scan stops at the first payload
 * without one — on a POST's answer that is the response, after which nothing is routed.
 *
 * @param onServerRequest Called with the id of each server request before the response.
 * @returns The function to feed each chunk of the body to, in order.
 */
export function scanServerRequests(
  onServerRequest: (serverRequestId: JsonRpcId) => void,
): (bytes: Uint8Array) => void {
  const scanner = new EventStreamScanner(onServerRequest);
  return (bytes) => scanner.feed(bytes);
}

/**
 * A minimal Server-Sent Events scanner for {@link scanServerRequests}. Incomplete events at the
 * end are ignored, as SSE parsers do.
 */
class EventStreamScanner {
  readonly #onServerRequest: (serverRequestId: JsonRpcId) => void;
  readonly #decoder = new TextDecoder();
  /** Text after the last complete line. */
  #rest = '';
  /** The `data` lines of the event being read. */
  #data: string[] = [];
  /** The response went by: nothing more to report. */
  #done = false;

  constructor(onServerRequest: (serverRequestId: JsonRpcId) => void) {
    this.#onServerRequest = onServerRequest;
  }

  feed(bytes: Uint8Array): void {
    if (this.#done) return;
    const text = this.#rest + this.#decoder.decode(bytes, { stream: true });
    let start = 0;
    // Lines end with CRLF, LF or CR (found with indexOf, each searched again only once passed).
    let cr = text.indexOf('\r');
    let lf = text.indexOf('\n');
    while (!this.#done) {
      if (cr !== -1 && cr < start) cr = text.indexOf('\r', start);
      if (lf !== -1 && lf < start) lf = text.indexOf('\n', start);
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      if (end === -1) break;
      // A CR at the very end may be the first half of a CRLF split across chunks: it waits.
      if (end === cr && cr === text.length - 1) break;
      this.#line(text.slice(start, end));
      start = end === cr && lf === cr + 1 ? cr + 2 : end + 1;
    }
    this.#rest = this.#done ? '' : text.slice(start);
  }

  #line(line: string): void {
    if (line === '') {
      this.#dispatch();
      return;
    }
    if (!line.startsWith('data')) return;
    const colon = line.indexOf(':');
    if (colon === -1) {
      if (line === 'data') this.#data.push('');
      return;
    }
    if (colon !== 4) return;
    this.#data.push(line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5));
  }

  #dispatch(): void {
    const data = this.#data.length === 1 ? this.#data[0]! : this.#data.join('\n');
    this.#data = [];
    if (data === '') return;
    if (!data.includes('"method"')) {
      // A response (ours: nothing else is answered on this stream).
      this.#done = true;
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      return;
    }
    for (const message of Array.isArray(parsed) ? (parsed as unknown[]) : [parsed]) {
      if (typeof message !== 'object' || message === null) continue;
      const { id, method } = message as { id?: unknown; method?: unknown };
      if (typeof method !== 'string') this.#done = true;
      else if (typeof id === 'string' || typeof id === 'number') this.#onServerRequest(id);
    }
  }
}
