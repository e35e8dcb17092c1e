import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { SwitchboardError } from '../../errors/switchboard-error.ts';
import { startTestAuthorizationServer } from '../oauth/test-authorization-server.ts';
import type { TestAuthorizationServer } from '../oauth/test-authorization-server.ts';
import { handleControlRoute } from './control-routes.ts';
import type { ControlContext } from './control-routes.ts';
import { createDemoServerState } from './demo-server-state.ts';
import { createFaultSwitches } from './fault-switches.ts';
import type { FaultSwitches } from './fault-switches.ts';
import {
  applyCorsHeaders,
  headerValue,
  readRequestBody,
  rpcMethodOf,
  rpcRequestIdOf,
  sendJson,
  sendJsonRpcError,
  sendText,
  sleep,
} from './http-support.ts';
import { LEGACY_MESSAGES_PATH, createLegacySseEndpoint } from './legacy-sse-endpoint.ts';
import { createLegacyStreamableEndpoint } from './legacy-streamable-endpoint.ts';
import { createModernEndpoint } from './modern-endpoint.ts';
import {
  PROTECTED_PATH,
  PROTECTED_RESOURCE_METADATA_PATH,
  createProtectedEndpoint,
} from './protected-endpoint.ts';
import type { ProtectedEndpoint } from './protected-endpoint.ts';
import { cutEventStream, trackResponseStatus } from './request-log.ts';
import type { RequestLogEntry } from './request-log.ts';

/** Options of {@link startDemoServer}. */
export interface DemoServerOptions {
  /** TCP port on 127.0.0.1. Default 0: an ephemeral port chosen by the system. */
  port?: number;
  /** Number of filler tools `tool_000` … added to the 8 named tools. Default 160. */
  toolCount?: number;
  /** Tools per `tools/list` page on every endpoint. Default 20. */
  pageSize?: number;
  /** Aborting closes the server (as `close()` does); already aborted → the start rejects. */
  signal?: AbortSignal;
  /**
   * Also starts a test OAuth 2.1 authorization server (`startTestAuthorizationServer`) and serves
   * `/protected/mcp` behind it. Unset (default): no OAuth, no protected endpoint.
   */
  oauth?: DemoOAuthOptions;
}

/** The authorization server of a demo server started with `oauth`. */
export interface DemoOAuthOptions {
  /** TCP port of the authorization server on 127.0.0.1. Default 0: an ephemeral port. */
  port?: number;
  /** Lifetime of its access tokens, in ms. Default 3_600_000 (one hour). */
  accessTokenTtlMs?: number;
  /** `page` (default): an HTML consent page; `auto`: approve at once (Node tests). */
  consent?: 'page' | 'auto';
}

/** A running demo MCP server (one `node:http` server on 127.0.0.1). */
export interface DemoServer {
  /** Base URL without a trailing slash: `http://127.0.0.1:PORT`. */
  url: string;
  /** 2026-07-28 endpoint (stateless, MRTR): `${url}/modern/mcp`. */
  modernUrl: string;
  /** 2025-era Streamable HTTP endpoint with sessions: `${url}/legacy/mcp`. */
  legacyUrl: string;
  /** Legacy HTTP+SSE transport (2024-11-05): `${url}/legacy/sse`. */
  legacySseUrl: string;
  /**
   * With `oauth` only: `${url}/protected/mcp`, the modern endpoint's tools plus the admin tool
   * `reset_demo_data`, behind OAuth. Every request needs `Authorization: Bearer <token>` from
   * the authorization server with scope `mcp:tools` (and, when the token is bound to a resource,
   * bound to this URL); otherwise 401 with `WWW-Authenticate: Bearer …, resource_metadata=…`.
   * Calling `reset_demo_data` without `mcp:admin` is 403 `insufficient_scope` (step-up). Its
   * RFC 9728 metadata is at `${url}/.well-known/oauth-protected-resource/protected/mcp`.
   */
  protectedUrl?: string;
  /** With `oauth` only: the authorization server's issuer URL, `http://127.0.0.1:AUTH_PORT`. */
  authorizationServerUrl?: string;
  /**
   * With `oauth` only: the running authorization server (verify or revoke tokens, read its
   * request log). Closed by `close()`.
   */
  authorizationServer?: TestAuthorizationServer;
  /** Live fault switches (also reachable over HTTP at `/control/faults`). */
  faults: FaultSwitches;
  /** Every request received, oldest first (a live array). */
  log: RequestLogEntry[];
  /**
   * Closes every session and stream, stops listening and destroys every open socket. Resolves
   * once closed (within about a second even if an endpoint is stuck); calling it again returns
   * the same promise.
   */
  close(): Promise<void>;
}

type McpRoute = 'modern' | 'legacy-streamable' | 'legacy-sse' | 'legacy-messages' | 'protected';

const MCP_ROUTES: Readonly<Record<string, McpRoute>> = {
  '/modern/mcp': 'modern',
  '/legacy/mcp': 'legacy-streamable',
  '/legacy/sse': 'legacy-sse',
  [LEGACY_MESSAGES_PATH]: 'legacy-messages',
};

/** How long `close()` waits for the SDK endpoints before destroying sockets anyway, in ms. */
const ENDPOINT_CLOSE_GRACE_MS = 1000;

/** A broken JSON-RPC response body for the `malformedJson` fault (valid prefix, then cut). */
function malformedBody(id: string | number): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"tools":[{"name":"trunc`;
}

function validateCount(name: string, value: number, minimum: number): number {
  if (!Number.isSafeInteger(value) || value < minimum) {
    throw new SwitchboardError(
      'invalid_input',
      `${name} must be an integer of at least ${minimum} (got ${value}).`,
    );
  }
  return value;
}

/**
 * Starts the demo MCP server on 127.0.0.1: one `node:http` server that routes by path.
 *
 * - `/modern/mcp`: `@modelcontextprotocol/server` v2 (2026-07-28, stateless, MRTR `input_required`
 *   for `book_table` form and `connect_account` URL elicitation, signed `requestState`,
 *   `subscriptions/listen` list changes).
 * - `/legacy/mcp`: `@modelcontextprotocol/sdk` v1 Streamable HTTP with sessions (pushed
 *   `elicitation/create`, standalone GET stream, DELETE ends a session, unknown session → 404).
 * - `/legacy/sse` + `/legacy/messages?sessionId=`: v1 legacy HTTP+SSE transport.
 * - `GET|POST /control/faults`, `POST /control/tools-changed`, `GET /demo/authorize`, and
 *   `GET /` (a JSON index of the URLs). With `oauth` also `POST
 *   /control/oauth/expire-access-tokens` and `GET /control/oauth/token-requests` (see
 *   `handleControlRoute`).
 * - With `oauth`: `/protected/mcp` (the modern endpoint behind OAuth, see
 *   {@link DemoServer.protectedUrl}) and its metadata at
 *   `/.well-known/oauth-protected-resource/protected/mcp`, plus a separate authorization server
 *   on its own port (see `startTestAuthorizationServer`), closed with the demo server.
 *
 * Every endpoint lists 8 named tools (`book_table`, `connect_account`, `slow_count`,
 * `delete_file`, `read_file`, `get_weather`, `fail`, `throw_error`) plus `toolCount` fillers,
 * `pageSize` per `tools/list` page. Every response carries permissive CORS headers (Origin
 * reflected, MCP headers allowed and exposed, max-age 600 s); the Origin is not validated because
 * browsers on any local dev port must reach it, and it only binds loopback.
 *
 * @param options Port (default 0), `toolCount` (default 160), `pageSize` (default 20), signal,
 *   `oauth` (default: none).
 * @returns The running server; always call `close()` when done.
 * @throws SwitchboardError `invalid_input` for a bad `toolCount`/`pageSize` or `oauth` option,
 *   `aborted` when `signal` is already aborted; the listen error (e.g. `EADDRINUSE`) when a port
 *   is taken (then nothing is left running).
 */
export async function startDemoServer(options: DemoServerOptions = {}): Promise<DemoServer> {
  const { port = 0, signal } = options;
  const toolCount = validateCount('toolCount', options.toolCount ?? 160, 0);
  const pageSize = validateCount('pageSize', options.pageSize ?? 20, 1);
  if (signal?.aborted === true) {
    throw new SwitchboardError('aborted', 'The demo server start was aborted.', {
      cause: signal.reason,
    });
  }

  const authorizationServer =
    options.oauth === undefined ? undefined : await startTestAuthorizationServer(options.oauth);
  const state = createDemoServerState(toolCount, pageSize);
  const log: RequestLogEntry[] = [];
  const faults = createFaultSwitches(() => {
    legacyStreamable.expireSessions();
    legacySse.expireSessions();
  });
  const modern = createModernEndpoint(state);
  const legacyStreamable = createLegacyStreamableEndpoint(state, faults);
  const legacySse = createLegacySseEndpoint(state);
  const protectedEndpoint: ProtectedEndpoint | undefined =
    authorizationServer === undefined
      ? undefined
      : createProtectedEndpoint(state, {
          authorizationServerUrl: authorizationServer.url,
          verifyAccessToken: (token) => authorizationServer.verifyAccessToken(token),
        });
  const closing = new AbortController();
  const sockets = new Set<Socket>();

  const control: ControlContext = {
    state,
    faults,
    notifyToolsChanged() {
      modern.notifyToolsChanged();
      protectedEndpoint?.notifyToolsChanged();
      legacyStreamable.notifyToolsChanged();
      legacySse.notifyToolsChanged();
    },
    sessionCounts() {
      return {
        legacyStreamable: legacyStreamable.sessionCount(),
        legacySse: legacySse.sessionCount(),
      };
    },
    ...(authorizationServer === undefined ? {} : { authorizationServer }),
  };

  function consumeDropMidStream(): boolean {
    if (!faults.dropMidStream) return false;
    faults.dropMidStream = false;
    return true;
  }

  async function serveMcp(
    route: McpRoute,
    method: string,
    url: URL,
    body: unknown,
    entry: RequestLogEntry,
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> {
    const requestDone = new AbortController();
    response.on('close', () => requestDone.abort());
    await sleep(faults.delayMs, AbortSignal.any([requestDone.signal, closing.signal]));
    if (response.destroyed || closing.signal.aborted) return;

    const streamable = route === 'modern' || route === 'protected' || route === 'legacy-streamable';
    if (streamable && method === 'POST') {
      const refused = faults.refuseInitialize;
      if (
        refused !== null &&
        (entry.rpcMethod === 'initialize' || entry.rpcMethod === 'server/discover')
      ) {
        sendText(
          response,
          refused,
          `Refused by the demo server's refuseInitialize fault (${refused}).`,
        );
        return;
      }
      const id = rpcRequestIdOf(body);
      if (faults.malformedJson && id !== undefined) {
        faults.malformedJson = false;
        sendText(response, 200, malformedBody(id), 'application/json');
        return;
      }
    }
    if (!(route === 'legacy-streamable' && method === 'GET')) {
      cutEventStream(response, consumeDropMidStream);
    }

    switch (route) {
      case 'modern':
        await modern.handle(request, response, body);
        return;
      case 'protected':
        await protectedEndpoint?.handle(request, response, body);
        return;
      case 'legacy-streamable':
        await legacyStreamable.handle(request, response, body);
        return;
      case 'legacy-sse':
        if (method !== 'GET') {
          sendText(response, 405, 'Method not allowed.', undefined, { allow: 'GET' });
          return;
        }
        await legacySse.openStream(request, response);
        return;
      case 'legacy-messages':
        if (method !== 'POST') {
          sendText(response, 405, 'Method not allowed.', undefined, { allow: 'POST' });
          return;
        }
        await legacySse.postMessage(
          request,
          response,
          url.searchParams.get('sessionId') ?? undefined,
          body,
        );
        return;
    }
  }

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const method = (request.method ?? 'GET').toUpperCase();
    const mcpRoute =
      MCP_ROUTES[url.pathname] ??
      (protectedEndpoint !== undefined && url.pathname === PROTECTED_PATH
        ? 'protected'
        : undefined);
    applyCorsHeaders(request, response);

    const entry: RequestLogEntry = {
      method,
      path: url.pathname,
      status: 0,
      receivedAt: Date.now(),
    };
    const sessionId =
      headerValue(request, 'mcp-session-id') ??
      (mcpRoute === 'legacy-messages' ? url.searchParams.get('sessionId') : null) ??
      undefined;
    if (sessionId !== undefined) entry.sessionId = sessionId;
    log.push(entry);
    trackResponseStatus(response, entry);

    if (method === 'OPTIONS') {
      response.writeHead(204, { 'content-length': '0' });
      response.end();
      return;
    }

    let body: unknown;
    if (method === 'POST') {
      let text: string;
      try {
        text = await readRequestBody(request);
      } catch {
        sendJsonRpcError(response, 413, -32000, 'Request body too large.');
        return;
      }
      if (text.length > 0) {
        try {
          body = JSON.parse(text);
        } catch {
          sendJsonRpcError(response, 400, -32700, 'Parse error: the body is not valid JSON.');
          return;
        }
      }
      const rpcMethod = rpcMethodOf(body);
      if (rpcMethod !== undefined) entry.rpcMethod = rpcMethod;
    }

    // The bearer check comes before the fault switches: a refused request never reaches them.
    if (mcpRoute === 'protected' && protectedEndpoint !== undefined) {
      if (!(await protectedEndpoint.authorize(request, response, body))) return;
    }
    if (mcpRoute !== undefined) {
      await serveMcp(mcpRoute, method, url, body, entry, request, response);
      return;
    }
    if (protectedEndpoint !== undefined && url.pathname === PROTECTED_RESOURCE_METADATA_PATH) {
      if (method === 'GET') sendJson(response, 200, protectedEndpoint.metadata());
      else sendText(response, 405, 'Method not allowed.', undefined, { allow: 'GET, OPTIONS' });
      return;
    }
    if (handleControlRoute(control, method, url, body, response)) return;
    if (url.pathname === '/' && method === 'GET') {
      sendJson(response, 200, {
        name: 'switchboard-demo-server',
        modernUrl: `${state.url}/modern/mcp`,
        legacyUrl: `${state.url}/legacy/mcp`,
        legacySseUrl: `${state.url}/legacy/sse`,
        ...(authorizationServer === undefined
          ? {}
          : {
              protectedUrl: `${state.url}${PROTECTED_PATH}`,
              authorizationServerUrl: authorizationServer.url,
            }),
        control: [
          `${state.url}/control/faults`,
          `${state.url}/control/tools-changed`,
          ...(authorizationServer === undefined
            ? []
            : [
                `${state.url}/control/oauth/expire-access-tokens`,
                `${state.url}/control/oauth/token-requests`,
              ]),
        ],
      });
      return;
    }
    sendText(response, 404, `No route for ${method} ${url.pathname}.`);
  }

  const httpServer = createServer((request, response) => {
    response.on('error', () => {
      // The client went away (or a fault cut the socket); nothing left to tell it.
    });
    request.on('error', () => {
      // Same: an aborted upload is not a server failure.
    });
    route(request, response).catch((error: unknown) => {
      if (!response.headersSent) {
        const message = error instanceof Error ? error.message : String(error);
        sendJsonRpcError(response, 500, -32603, `Demo server error: ${message}`);
      } else {
        response.destroy();
      }
    });
  });
  httpServer.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  try {
    await new Promise<void>((resolve, reject) => {
      httpServer.once('error', reject);
      httpServer.listen(port, '127.0.0.1', () => {
        httpServer.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await authorizationServer?.close();
    throw error;
  }
  const address = httpServer.address();
  if (address === null || typeof address === 'string') {
    httpServer.close();
    await authorizationServer?.close();
    throw new SwitchboardError('invalid_input', 'The demo server has no TCP address.');
  }
  state.url = `http://127.0.0.1:${address.port}`;

  let closed: Promise<void> | undefined;
  function close(): Promise<void> {
    closed ??= (async () => {
      closing.abort();
      const stopped = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      const graceOver = new AbortController();
      await Promise.race([
        Promise.allSettled([
          modern.close(),
          protectedEndpoint?.close(),
          legacyStreamable.close(),
          legacySse.close(),
        ]),
        sleep(ENDPOINT_CLOSE_GRACE_MS, graceOver.signal),
      ]);
      graceOver.abort();
      for (const socket of sockets) socket.destroy();
      httpServer.closeAllConnections();
      await stopped;
      await authorizationServer?.close();
    })();
    return closed;
  }
  signal?.addEventListener('abort', () => void close(), { once: true });

  return {
    url: state.url,
    modernUrl: `${state.url}/modern/mcp`,
    legacyUrl: `${state.url}/legacy/mcp`,
    legacySseUrl: `${state.url}/legacy/sse`,
    ...(authorizationServer === undefined
      ? {}
      : {
          protectedUrl: `${state.url}${PROTECTED_PATH}`,
          authorizationServerUrl: authorizationServer.url,
          authorizationServer,
        }),
    faults,
    log,
    close,
  };
}
