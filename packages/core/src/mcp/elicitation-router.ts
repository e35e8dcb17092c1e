import type { Client } from '@modelcontextprotocol/client';

/** The `_meta` key our `tools/call` requests carry so server requests can be traced to them. */
export const CALL_ID_META_KEY = 'dev.switchboard/callId';

/**
 * Finds which tool call a server-to-client request (a pushed `elicitation/create`) belongs to.
 * Everything is kept per session (per `Client`): server request ids are numbered per session,
 * so the same id on two sessions means two different requests.
 *
 * 1. Streamable HTTP sends such a request on the SSE stream of the `tools/call` POST it relates
 *    to, but the MCP SDK's request handler does not say which stream a request came from. So the
 *    session's fetch (`connection/session-fetch.ts`) reads our call key
 *    (`_meta[CALL_ID_META_KEY]`) from a 2025-era `tools/call` body and reports the server
 *    request ids on that call's SSE answer ({@link ElicitationRouter.noteServerRequest}); the
 *    bytes pass on unchanged. (The 2026-07-28 revision has no server-to-client requests.)
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

  /**
   * Server request `serverRequestId` arrived on the SSE answer of call `callKey`'s request on
   * `client`'s session (reported by the session's fetch, `SessionFetchOptions.onServerRequest`):
   * it belongs to that call.
   */
  noteServerRequest(client: Client, callKey: string, serverRequestId: string | number): void {
    let requests = this.#requestToCall.get(client);
    if (requests === undefined) {
      requests = new Map<string, string>();
      this.#requestToCall.set(client, requests);
    }
    requests.set(String(serverRequestId), callKey);
  }
}
