import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { DemoServerState } from './demo-server-state.ts';
import type { FaultSwitches } from './fault-switches.ts';
import { headerValue, sendJsonRpcError, sendText } from './http-support.ts';
import { createLegacyServer } from './legacy-server.ts';

/** The `/legacy/mcp` endpoint: 2025-era Streamable HTTP with sessions. */
export interface LegacyStreamableEndpoint {
  /** Serves one HTTP request (POST body already parsed by the router). */
  handle(request: IncomingMessage, response: ServerResponse, parsedBody: unknown): Promise<void>;
  /** Sends `notifications/tools/list_changed` to every session (on its standalone GET stream). */
  notifyToolsChanged(): void;
  /** Forgets every session and closes its streams; old session ids then get 404. */
  expireSessions(): void;
  /** Number of live sessions. */
  sessionCount(): number;
  /** Closes every session. */
  close(): Promise<void>;
}

/** Most sessions kept at once; opening one more closes the oldest (page reloads never DELETE). */
const MAX_SESSIONS = 200;

interface LegacySession {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
}

function isInitializeBody(body: unknown): boolean {
  return Array.isArray(body)
    ? body.some((message) => isInitializeRequest(message))
    : isInitializeRequest(body);
}

/**
 * Creates `/legacy/mcp` on `@modelcontextprotocol/sdk` v1: one `StreamableHTTPServerTransport`
 * (`sessionIdGenerator: randomUUID`) and one `McpServer` per session, kept in a map. POST
 * `initialize` without a session opens one; other requests need `Mcp-Session-Id` (missing → 400,
 * unknown → 404); GET opens the standalone SSE stream (or answers `faults.getStream`); DELETE
 * ends the session.
 */
export function createLegacyStreamableEndpoint(
  state: DemoServerState,
  faults: FaultSwitches,
): LegacyStreamableEndpoint {
  const sessions = new Map<string, LegacySession>();

  function closeSession(session: LegacySession): Promise<void> {
    return Promise.allSettled([session.transport.close(), session.server.close()]).then(
      () => undefined,
    );
  }

  async function openSession(
    request: IncomingMessage,
    response: ServerResponse,
    parsedBody: unknown,
  ): Promise<void> {
    const server = createLegacyServer(state);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (sessionId) => {
        if (sessions.size >= MAX_SESSIONS) {
          const [oldestId, oldest] = sessions.entries().next().value ?? [];
          if (oldestId !== undefined && oldest !== undefined) {
            sessions.delete(oldestId);
            void closeSession(oldest);
          }
        }
        sessions.set(sessionId, { transport, server });
      },
    });
    transport.onclose = () => {
      const sessionId = transport.sessionId;
      if (sessionId !== undefined && sessions.get(sessionId)?.transport === transport) {
        sessions.delete(sessionId);
      }
    };
    await server.connect(transport);
    await transport.handleRequest(request, response, parsedBody);
  }

  return {
    async handle(request, response, parsedBody) {
      const method = request.method ?? 'GET';
      if (method !== 'POST' && method !== 'GET' && method !== 'DELETE') {
        sendText(response, 405, 'Method not allowed.', undefined, { allow: 'GET, POST, DELETE' });
        return;
      }
      if (method === 'GET' && faults.getStream !== 'ok') {
        const status = faults.getStream;
        const headers: Record<string, string> = status === 405 ? { allow: 'POST, DELETE' } : {};
        sendText(
          response,
          status,
          `Standalone GET stream refused (${status}).`,
          undefined,
          headers,
        );
        return;
      }
      const sessionId = headerValue(request, 'mcp-session-id');
      if (sessionId === undefined) {
        if (method === 'POST' && isInitializeBody(parsedBody)) {
          await openSession(request, response, parsedBody);
          return;
        }
        sendJsonRpcError(response, 400, -32000, 'Bad Request: No valid session ID provided');
        return;
      }
      const session = sessions.get(sessionId);
      if (session === undefined) {
        sendJsonRpcError(response, 404, -32001, 'Session not found');
        return;
      }
      await session.transport.handleRequest(request, response, parsedBody);
    },
    notifyToolsChanged() {
      for (const session of sessions.values()) {
        session.server.sendToolListChanged();
      }
    },
    expireSessions() {
      const expired = [...sessions.values()];
      sessions.clear();
      for (const session of expired) void closeSession(session);
    },
    sessionCount() {
      return sessions.size;
    },
    async close() {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map(closeSession));
    },
  };
}
