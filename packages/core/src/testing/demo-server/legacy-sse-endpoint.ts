import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import type { DemoServerState } from './demo-server-state.ts';
import { sendJsonRpcError } from './http-support.ts';
import { createLegacyServer } from './legacy-server.ts';

/** Path the legacy SSE stream announces in its `endpoint` event. */
export const LEGACY_MESSAGES_PATH = '/legacy/messages';

/** The legacy HTTP+SSE transport (2024-11-05): `GET /legacy/sse` + `POST /legacy/messages`. */
export interface LegacySseEndpoint {
  /** `GET /legacy/sse`: opens a session and its SSE stream (first event: `endpoint`). */
  openStream(request: IncomingMessage, response: ServerResponse): Promise<void>;
  /** `POST /legacy/messages?sessionId=…`: one client message (unknown session → 404). */
  postMessage(
    request: IncomingMessage,
    response: ServerResponse,
    sessionId: string | undefined,
    parsedBody: unknown,
  ): Promise<void>;
  /** Sends `notifications/tools/list_changed` on every open stream. */
  notifyToolsChanged(): void;
  /** Forgets every session and closes its stream. */
  expireSessions(): void;
  /** Number of live sessions. */
  sessionCount(): number;
  /** Closes every session. */
  close(): Promise<void>;
}

interface SseSession {
  transport: SSEServerTransport;
  server: McpServer;
}

/** Creates the legacy HTTP+SSE endpoint on `@modelcontextprotocol/sdk` v1 `SSEServerTransport`. */
export function createLegacySseEndpoint(state: DemoServerState): LegacySseEndpoint {
  const sessions = new Map<string, SseSession>();

  function closeSession(session: SseSession): Promise<void> {
    return Promise.allSettled([session.transport.close(), session.server.close()]).then(
      () => undefined,
    );
  }

  return {
    async openStream(_request, response) {
      const server = createLegacyServer(state);
      const transport = new SSEServerTransport(LEGACY_MESSAGES_PATH, response);
      const sessionId = transport.sessionId;
      sessions.set(sessionId, { transport, server });
      transport.onclose = () => {
        if (sessions.get(sessionId)?.transport === transport) sessions.delete(sessionId);
      };
      response.on('close', () => {
        const session = sessions.get(sessionId);
        if (session?.transport === transport) {
          sessions.delete(sessionId);
          void closeSession(session);
        }
      });
      await server.connect(transport);
    },
    async postMessage(request, response, sessionId, parsedBody) {
      const session = sessionId === undefined ? undefined : sessions.get(sessionId);
      if (session === undefined) {
        sendJsonRpcError(response, 404, -32001, 'Session not found');
        return;
      }
      await session.transport.handlePostMessage(request, response, parsedBody);
    },
    notifyToolsChanged() {
      for (const session of sessions.values()) session.server.sendToolListChanged();
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
