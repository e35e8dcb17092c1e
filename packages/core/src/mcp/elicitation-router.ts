import { createParser } from 'eventsource-parser';

/** The `_meta` key our `tools/call` requests carry so server requests can be traced to them. */
export const CALL_ID_META_KEY = 'dev.switchboard/callId';

/**
 * Finds which tool call a server-to-client request (a pushed `elicitation/create`) belongs to.
 *
 * Streamable HTTP sends such a request on the SSE stream of the `tools/call` POST it relates to,
 * but the MCP SDK's request handler does not say which stream a request came from. So a fetch
 * middleware reads the `tools/call` body for our call id (`_meta[CALL_ID_META_KEY]`) and
 * watches that response's SSE events (parsed with `eventsource-parser`, passing the bytes on
 * unchanged) for request ids. Transports with one shared stream (legacy SSE, stdio) cannot be
 * traced this way; then the only call in flight is used, or the oldest one.
 */
export class ElicitationRouter {
  readonly #requestToCall = new Map<string, string>();
  readonly #inFlight: string[] = [];

  /** Marks a call as in flight until the returned function is called. */
  track(callId: string): () => void {
    this.#inFlight.push(callId);
    return () => {
      const index = this.#inFlight.indexOf(callId);
      if (index !== -1) this.#inFlight.splice(index, 1);
      for (const [requestId, owner] of this.#requestToCall) {
        if (owner === callId) this.#requestToCall.delete(requestId);
      }
    };
  }

  /** The call a server request belongs to, or undefined when no call is in flight. */
  callFor(serverRequestId: string | number): string | undefined {
    return this.#requestToCall.get(String(serverRequestId)) ?? this.#inFlight[0];
  }

  /** The fetch middleware that learns request → call links from `tools/call` SSE responses. */
  middleware(next: typeof fetch): typeof fetch {
    return async (input, init) => {
      const response = await next(input, init);
      const callId = init?.method === 'POST' ? callIdOf(init.body) : undefined;
      const isStream = response.headers.get('content-type')?.includes('text/event-stream') === true;
      if (callId === undefined || !isStream || response.body === null) return response;
      const parser = createParser({
        onEvent: (event) => {
          const id = serverRequestIdOf(event.data);
          if (id !== undefined) this.#requestToCall.set(String(id), callId);
        },
      });
      const decoder = new TextDecoder();
      const observed = response.body.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            controller.enqueue(chunk);
            parser.feed(decoder.decode(chunk, { stream: true }));
          },
        }),
      );
      return new Response(observed, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    };
  }
}

function callIdOf(body: unknown): string | undefined {
  if (typeof body !== 'string' || !body.includes(CALL_ID_META_KEY)) return undefined;
  try {
    const message = JSON.parse(body) as {
      method?: string;
      params?: { _meta?: Record<string, unknown> };
    };
    const value =
      message.method === 'tools/call' ? message.params?._meta?.[CALL_ID_META_KEY] : undefined;
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

function serverRequestIdOf(data: string): string | number | undefined {
  if (!data.includes('"method"')) return undefined;
  try {
    const message = JSON.parse(data) as { id?: unknown; method?: unknown };
    const isRequest = typeof message.method === 'string' && message.id !== undefined;
    return isRequest && (typeof message.id === 'string' || typeof message.id === 'number')
      ? message.id
      : undefined;
  } catch {
    return undefined;
  }
}
