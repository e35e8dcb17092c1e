import type { Client } from '@modelcontextprotocol/client';
import { createParser } from 'eventsource-parser';

/** The `_meta` key our `tools/call` requests carry so server requests can be traced to them. */
export const CALL_ID_META_KEY = 'dev.switchboard/callId';

/**
 * Finds which tool call a server-to-client request (a pushed `elicitation/create`) belongs to.
 * Everything is kept per session (per `Client`): server request ids are numbered per session,
 * so the same id on two sessions means two different requests.
 *
 * 1. Streamable HTTP sends such a request on the SSE stream of the `tools/call` POST it relates
 *    to, but the MCP SDK's request handler does not say which stream a request came from. So a
 *    fetch middleware (one per session) reads the `tools/call` body for our call key
 *    (`_meta[CALL_ID_META_KEY]`) and watches that response's SSE events (parsed with
 *    `eventsource-parser`, passing the bytes on unchanged) for request ids.
 * 2. Otherwise (legacy HTTP+SSE, stdio, or a request on the standalone GET stream) the wire says
 *    nothing about the call, and the session does: the request belongs to the one call running
 *    on that session. `McpConnection.use({ exclusive: true })` makes sure that a legacy SSE
 *    session carries one call at a time. When several calls run on such a session (stdio) the
 *    request is ambiguous and {@link callFor} returns undefined, so that no call ever gets
 *    another call's question.
 */
export class ElicitationRouter {
  /** Per session: server request id → call key, learned from that session's `tools/call` streams. */
  readonly #requestToCall = new WeakMap<Client, Map<string, string>>();
  /** Per session: the calls running on it. */
  readonly #callsOn = new WeakMap<Client, Set<string>>();

  /**
   * Marks call `callKey` as running on the session of `client` until the returned function is
   * called (which also forgets the request ids learned for it).
   */
  attach(client: Client, callKey: string): () => void {
    const calls = this.#callsOn.get(client) ?? new Set<string>();
    this.#callsOn.set(client, calls);
    calls.add(callKey);
    return () => {
      calls.delete(callKey);
      const requests = this.#requestToCall.get(client);
      if (requests === undefined) return;
      for (const [requestId, owner] of requests) {
        if (owner === callKey) requests.delete(requestId);
      }
    };
  }

  /**
   * The call a server request on `client`'s session belongs to: the one whose stream carried it,
   * else the only call running on that session; undefined when none, or when it is ambiguous.
   */
  callFor(client: Client, serverRequestId: string | number): string | undefined {
    const traced = this.#requestToCall.get(client)?.get(String(serverRequestId));
    if (traced !== undefined) return traced;
    const calls = this.#callsOn.get(client);
    return calls?.size === 1 ? [...calls][0] : undefined;
  }

  /** The fetch middleware of `client`'s session: learns request → call links from its streams. */
  middleware(next: typeof fetch, client: Client): typeof fetch {
    return async (input, init) => {
      const response = await next(input, init);
      // Only an SSE answer can carry server requests: a JSON answer's body is never parsed.
      const isStream = response.headers.get('content-type')?.includes('text/event-stream') === true;
      if (!isStream || response.body === null || init?.method !== 'POST') return response;
      const callKey = callKeyOf(init.body);
      if (callKey === undefined) return response;
      const requests = this.#requestToCall.get(client) ?? new Map<string, string>();
      this.#requestToCall.set(client, requests);
      const parser = createParser({
        onEvent: (event) => {
          const id = serverRequestIdOf(event.data);
          if (id !== undefined) requests.set(String(id), callKey);
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

function callKeyOf(body: unknown): string | undefined {
  if (typeof body !== 'string' || !body.includes(CALL_ID_META_KEY)) return undefined;
  try {
    const message = JSON.parse(body) as {
      method?: string;
      params?: { _meta?: Record<string, unknown> };
    };
    const value =
      message.method === 'tools/call' || message.method === 'tasks/result'
        ? message.params?._meta?.[CALL_ID_META_KEY]
        : undefined;
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
