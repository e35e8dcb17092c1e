import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  UrlElicitationRequiredError,
} from '@modelcontextprotocol/sdk/types.js';
import type {
  CallToolResult,
  ListToolsResult,
  ServerNotification,
  ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { DemoServerState } from './demo-server-state.ts';
import {
  DemoProtocolError,
  bookTableInput,
  connectAccountInput,
  parseToolArguments,
  textResult,
} from './demo-tools.ts';
import type { DemoToolContext, DemoToolResult } from './demo-tools.ts';
import {
  authorizeUrl,
  bookingMessage,
  bookingOutcome,
  bookingRequestedSchema,
  connectMessage,
  connectOutcome,
} from './elicitation-flows.ts';
import { listToolsPage } from './tool-pagination.ts';

/** How long a pushed elicitation may wait for the human, in ms (10 minutes). */
const ELICITATION_TIMEOUT_MS = 10 * 60 * 1000;

type LegacyExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

function toMcpError(error: unknown): unknown {
  return error instanceof DemoProtocolError ? new McpError(error.code, error.message) : error;
}

function toolContext(extra: LegacyExtra): DemoToolContext {
  const progressToken = extra._meta?.progressToken;
  return {
    signal: extra.signal,
    async reportProgress(progress) {
      if (progressToken === undefined || extra.signal.aborted) return;
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken, ...progress },
      });
    },
  };
}

function elicitationFailure(error: unknown): DemoToolResult {
  const message = error instanceof Error ? error.message : String(error);
  return textResult(`The elicitation failed: ${message}`, true);
}

/** `book_table`, 2025 style: a pushed form `elicitation/create` on the call's own stream. */
async function bookTable(
  server: McpServer,
  rawArguments: unknown,
  extra: LegacyExtra,
): Promise<DemoToolResult> {
  const parsed = parseToolArguments('book_table', bookTableInput, rawArguments);
  if (!parsed.ok) return parsed.result;
  const { restaurant } = parsed.value;
  try {
    const answer = await server.server.elicitInput(
      { message: bookingMessage(restaurant), requestedSchema: bookingRequestedSchema },
      { relatedRequestId: extra.requestId, timeout: ELICITATION_TIMEOUT_MS, signal: extra.signal },
    );
    return bookingOutcome(restaurant, answer.action, answer.content);
  } catch (error) {
    return elicitationFailure(error);
  }
}

/**
 * `connect_account`, 2025-11-25 style: a pushed URL-mode `elicitation/create` with an
 * `elicitationId`; opening the page sends `notifications/elicitation/complete`. A client without
 * the `elicitation.url` capability gets the `-32042` URL-elicitation-required error instead.
 */
async function connectAccount(
  state: DemoServerState,
  server: McpServer,
  rawArguments: unknown,
  extra: LegacyExtra,
): Promise<DemoToolResult> {
  const parsed = parseToolArguments('connect_account', connectAccountInput, rawArguments);
  if (!parsed.ok) return parsed.result;
  const { service } = parsed.value;
  const elicitationId = randomUUID();
  const url = authorizeUrl(state.url, elicitationId);
  const message = connectMessage(service);
  if (server.server.getClientCapabilities()?.elicitation?.url === undefined) {
    state.authorizations.register(elicitationId);
    throw new UrlElicitationRequiredError(
      [{ mode: 'url', message, url, elicitationId }],
      'This tool needs the user to open an authorization page first.',
    );
  }
  const notifyComplete = server.server.createElicitationCompletionNotifier(elicitationId);
  state.authorizations.register(elicitationId, () => {
    notifyComplete().catch(() => {
      // The session may be gone by the time the page is opened.
    });
  });
  try {
    const answer = await server.server.elicitInput(
      { mode: 'url', message, url, elicitationId },
      { relatedRequestId: extra.requestId, timeout: ELICITATION_TIMEOUT_MS, signal: extra.signal },
    );
    return connectOutcome(service, answer.action, state.authorizations.wasVisited(elicitationId));
  } catch (error) {
    return elicitationFailure(error);
  }
}

/**
 * Builds one 2025-era server (`@modelcontextprotocol/sdk` v1 `McpServer`) for one session. The
 * v1 `McpServer` does not paginate, so `tools/list` and `tools/call` are low-level handlers over
 * the shared demo catalog: pages of `pageSize`, and thrown {@link DemoProtocolError}s become
 * JSON-RPC errors.
 */
export function createLegacyServer(state: DemoServerState): McpServer {
  const server = new McpServer(
    { name: 'switchboard-demo-legacy', version: '1.0.0' },
    {
      capabilities: { tools: { listChanged: true } },
      instructions: 'Switchboard demo server (2025 era: sessions, pushed elicitation).',
    },
  );
  server.server.setRequestHandler(ListToolsRequestSchema, (request): ListToolsResult => {
    try {
      const page = listToolsPage(
        state.listedTools().map((tool) => tool.definition),
        request.params?.cursor,
        state.pageSize,
      );
      const result: ListToolsResult = { tools: page.tools };
      if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
      return result;
    } catch (error) {
      throw toMcpError(error);
    }
  });
  server.server.setRequestHandler(
    CallToolRequestSchema,
    async (request, extra): Promise<CallToolResult> => {
      const name = request.params.name;
      const tool = state.findTool(name);
      if (tool === undefined) {
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
      }
      if (name === 'book_table') return await bookTable(server, request.params.arguments, extra);
      if (name === 'connect_account') {
        return await connectAccount(state, server, request.params.arguments, extra);
      }
      if (tool.call === undefined) {
        throw new McpError(ErrorCode.InternalError, `No implementation for ${name}`);
      }
      try {
        return await tool.call(request.params.arguments, toolContext(extra));
      } catch (error) {
        throw toMcpError(error);
      }
    },
  );
  return server;
}
