/** A JSON-RPC request id (`id` of a request, and of the response that answers it). */
export type JsonRpcId = string | number;

/**
 * Passes an SSE response body through unchanged while watching it for the JSON-RPC response to
 * request `requestId`. When the body ends or breaks before that response arrived, and no event
 * carried an `id` (so the SDK cannot resume the stream with `Last-Event-ID`), `onLost` is
 * called once with the read error (`undefined` for a clean end), before the consumer sees the
 * end or the error. Nothing is reported once `signal` has aborted: that is the SDK closing the
 * stream on purpose.
 *
 * Why: the v2 SDK only reports such a break through `onerror` and leaves the request pending
 * until its timeout; this lets the connection layer fail it at once.
 *
 * The same scan reports each server request (a message with `method` and `id`, such as a pushed
 * `elicitation/create`) that arrives before the response to `onServerRequest`, before the
 * consumer sees its bytes: one observer per body, not one per interested party (every extra
 * stream layer costs each call a stream, a reader and a `Response`).
 *
 * @param body The response body (`text/event-stream`).
 * @param requestId The id of the request the stream answers.
 * @param signal The request's signal (aborted by the SDK on close or cancellation).
 * @param onLost Called when the answer can no longer arrive.
 * @param onServerRequest Called with the id of each server request the stream carries.
 * @returns A stream with the same bytes.
 */
export function watchEventStream(
  body: ReadableStream<Uint8Array>,
  requestId: JsonRpcId,
  signal: AbortSignal | null | undefined,
  onLost: (cause: unknown) => void,
  onServerRequest?: (serverRequestId: JsonRpcId) => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const scanner = new EventStreamScanner(requestId, onServerRequest);
  let reported = false;
  const report = (cause: unknown): void => {
    if (reported || signal?.aborted === true || !scanner.answerLost) return;
    reported = true;
    onLost(cause);
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await reader.read();
      } catch (error) {
        report(error);
        controller.error(error);
        return;
      }
      if (result.done) {
        report(undefined);
        controller.close();
        return;
      }
      scanner.feed(result.value);
      controller.enqueue(result.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/**
 * A minimal Server-Sent Events line scanner: it notes whether an event carried an `id` and
 * whether a `data` payload was the JSON-RPC response to the watched request, and reports the
 * server requests it sees. Incomplete events at the end are ignored, as SSE parsers do.
 */
class EventStreamScanner {
  readonly #requestId: JsonRpcId;
  readonly #onServerRequest: ((serverRequestId: JsonRpcId) => void) | undefined;
  readonly #decoder = new TextDecoder();
  #rest = '';
  #data: string[] = [];
  #answered = false;
  #resumable = false;

  constructor(requestId: JsonRpcId, onServerRequest?: (serverRequestId: JsonRpcId) => void) {
    this.#requestId = requestId;
    this.#onServerRequest = onServerRequest;
  }

  /** True when the response has not arrived and the stream cannot be resumed. */
  get answerLost(): boolean {
    return !this.#answered && !this.#resumable;
  }

  feed(bytes: Uint8Array): void {
    if (this.#answered) return;
    this.#rest += this.#decoder.decode(bytes, { stream: true });
    // A chunk may end between the CR and LF of one line break: keep a trailing CR for later.
    const end = this.#rest.endsWith('\r') ? this.#rest.length - 1 : this.#rest.length;
    const lines = this.#rest.slice(0, end).split(/\r\n|\r|\n/);
    this.#rest = (lines.pop() ?? '') + this.#rest.slice(end);
    for (const line of lines) this.#line(line);
  }

  #line(line: string): void {
    if (line === '') {
      this.#dispatch();
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.#data.push(value);
    else if (field === 'id' && value !== '') this.#resumable = true;
  }

  #dispatch(): void {
    const data = this.#data.join('\n');
    this.#data = [];
    if (data === '' || !data.includes('"id"')) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      return;
    }
    const messages: unknown[] = Array.isArray(parsed) ? parsed : [parsed];
    for (const message of messages) {
      if (typeof message !== 'object' || message === null) continue;
      const { id, method } = message as { id?: unknown; method?: unknown };
      if (typeof method === 'string') {
        if (typeof id === 'string' || typeof id === 'number') this.#onServerRequest?.(id);
      } else if (id === this.#requestId && ('result' in message || 'error' in message)) {
        this.#answered = true;
      }
    }
  }
}
