import { Store } from '@switchboard/core';

/** One HTTP exchange between the page and an MCP server. Never holds header values or bodies. */
export interface TrafficEntry {
  id: number;
  /** Milliseconds since the epoch, when the request was sent. */
  at: number;
  /** `POST`, `GET`, `DELETE`. */
  method: string;
  /** The JSON-RPC method of a POST (`initialize`, `tools/call`, …), when it has one. */
  rpcMethod?: string;
  /** The tool of a `tools/call`. */
  toolName?: string;
  /** HTTP status; absent while waiting and when the request failed before a response. */
  status?: number;
  /** Until the response headers arrived, in ms. */
  durationMs?: number;
  /** Why there is no status (`network error`), or what the playground did about it. */
  note?: string;
}

const maxEntries = 60;

/**
 * The recent HTTP traffic of one MCP server, newest last, as a `Store` (`subscribe` /
 * `getSnapshot`). Shown in the Servers panel so that server developers see what the client
 * sends: the era probe, `initialize`, the GET stream, calls, a 404 for an unknown session and,
 * only when the client then opens one, that it opened a new session.
 */
export class TrafficLog extends Store<readonly TrafficEntry[]> {
  #nextId = 1;

  constructor() {
    super([]);
  }

  /** Replaces the note of an entry (what the client did about it became known later). */
  annotate(id: number, note: string): void {
    this.set((entries) =>
      entries.map((existing) => (existing.id === id ? { ...existing, note } : existing)),
    );
  }

  /** Records a request; returns a function that completes its entry. */
  start(entry: Omit<TrafficEntry, 'id' | 'at'>): (result: Partial<TrafficEntry>) => void {
    return this.startWithId(entry).done;
  }

  /** {@link start}, with the entry's id (for {@link annotate}). */
  startWithId(entry: Omit<TrafficEntry, 'id' | 'at'>): {
    id: number;
    done: (result: Partial<TrafficEntry>) => void;
  } {
    const id = this.#nextId;
    this.#nextId += 1;
    const at = Date.now();
    this.set((entries) => [...entries, { ...entry, id, at }].slice(-maxEntries));
    const done = (result: Partial<TrafficEntry>) => {
      this.set((entries) =>
        entries.map((existing) =>
          existing.id === id ? { ...existing, ...result, durationMs: Date.now() - at } : existing,
        ),
      );
    };
    return { id, done };
  }
}

/** Options of {@link createServerFetch}. */
export interface ServerFetchOptions {
  /** Where to record the traffic. */
  log: TrafficLog;
  /**
   * The server is known to be 2025-era: answer the client's `server/discover` probe in the page
   * with JSON-RPC "method not found" (what the SDK reads as "not a 2026-07-28 server"), so the
   * probe never reaches the server and no HTTP 400 lands in the browser console.
   */
  known2025: boolean;
  /** The fetch that reaches the network. Default: the global one at call time. */
  fetch?: typeof fetch;
  /**
   * The server's MCP endpoint. A request elsewhere (OAuth discovery, client registration and
   * token requests of a server with OAuth sign-in; a legacy SSE server's message endpoint) is
   * noted with its host and path — never its query, headers or body.
   */
  serverUrl?: string;
}

/**
 * The `fetch` the playground gives each `McpServer` (`mcpServer({ fetch })`): records every
 * request in the server's {@link TrafficLog} and, for servers known to be 2025-era, answers the
 * version probe locally (see {@link ServerFetchOptions.known2025}).
 */
export function createServerFetch(options: ServerFetchOptions): typeof fetch {
  const { log, known2025 } = options;
  // 404s of requests that carried a session id, until the client opens a new session (an
  // `initialize`): only then is "the session expired, a new one was opened" true.
  let sessionMisses: { id: number; note: string }[] = [];
  return async (input, init) => {
    const method = (
      init?.method ?? (input instanceof Request ? input.method : 'GET')
    ).toUpperCase();
    const rpc = method === 'POST' ? describeRpc(init?.body) : {};
    if (known2025 && rpc.rpcMethod === 'server/discover' && rpc.id !== undefined) {
      const done = log.start({ method, rpcMethod: rpc.rpcMethod });
      done({ note: 'answered in the page: known 2025-era server, no probe sent' });
      return new Response(
        JSON.stringify({
          jsonrpc: '2.0',
          id: rpc.id,
          error: { code: -32601, message: 'Method not found' },
        }),
        { status: 200, headers: { 'content-type': 'application/json' } },
      );
    }
    const elsewhere = otherTarget(input, options.serverUrl);
    if (rpc.rpcMethod === 'initialize' && elsewhere === undefined) {
      for (const miss of sessionMisses) {
        log.annotate(miss.id, `${miss.note}; the client opened a new session`);
      }
      sessionMisses = [];
    }
    const { id, done } = log.startWithId({
      method,
      ...(rpc.rpcMethod === undefined ? {} : { rpcMethod: rpc.rpcMethod }),
      ...(rpc.toolName === undefined ? {} : { toolName: rpc.toolName }),
      ...(elsewhere === undefined ? {} : { note: `to ${elsewhere}` }),
    });
    try {
      const response = await (options.fetch ?? globalThis.fetch)(input, init);
      const note = notFoundNote(method, response.status, new Headers(init?.headers));
      done({ status: response.status, ...(note === undefined ? {} : { note }) });
      if (note !== undefined && elsewhere === undefined) sessionMisses.push({ id, note });
      return response;
    } catch (error) {
      const aborted = error instanceof DOMException && error.name === 'AbortError';
      done({ note: aborted ? 'aborted' : 'network error: no response' });
      throw error;
    }
  };
}

/**
 * What a 404 to a request with a session id means, as far as this one response tells: a POST's
 * session is unknown to the server; a GET found no event stream (the server may not offer one,
 * or the session is gone). Whether the client opened a new session is added once it does.
 */
function notFoundNote(method: string, status: number, headers: Headers): string | undefined {
  if (status !== 404 || !headers.has('mcp-session-id')) return undefined;
  return method === 'GET'
    ? 'no event stream for this session'
    : 'the server does not know this session';
}

/**
 * Host and path of the request when it does not go to the server's endpoint, else undefined.
 * The query is left out (it is not shown anywhere).
 */
function otherTarget(input: RequestInfo | URL, serverUrl: string | undefined): string | undefined {
  if (serverUrl === undefined) return undefined;
  let target: URL;
  let server: URL;
  try {
    target = new URL(input instanceof Request ? input.url : String(input));
    server = new URL(serverUrl);
  } catch {
    return undefined;
  }
  if (target.origin === server.origin && target.pathname === server.pathname) return undefined;
  return `${target.host}${target.pathname}`;
}

interface RpcSummary {
  rpcMethod?: string;
  id?: string | number;
  toolName?: string;
}

/** Method, id and tool name of the JSON-RPC message in a POST body (a JSON string). */
function describeRpc(body: unknown): RpcSummary {
  if (typeof body !== 'string') return {};
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return {};
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return {};
  const { method, id, params } = message as { method?: unknown; id?: unknown; params?: unknown };
  const name = (params as { name?: unknown } | undefined)?.name;
  return {
    ...(typeof method === 'string' ? { rpcMethod: method } : {}),
    ...(typeof id === 'string' || typeof id === 'number' ? { id } : {}),
    ...(method === 'tools/call' && typeof name === 'string' ? { toolName: name } : {}),
  };
}
