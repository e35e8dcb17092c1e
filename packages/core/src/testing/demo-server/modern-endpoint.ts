import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import type { NodeIncomingMessageLike } from '@modelcontextprotocol/node';
import {
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  acceptedContent,
  createMcpHandler,
  inputRequired,
  inputResponse,
} from '@modelcontextprotocol/server';
import type {
  CallToolRequest,
  CallToolResult,
  InputRequiredResult,
  ListToolsResult,
  ServerContext,
} from '@modelcontextprotocol/server';
import type { DemoRequestState, DemoServerState } from './demo-server-state.ts';
import {
  DemoProtocolError,
  bookTableInput,
  connectAccountInput,
  parseToolArguments,
} from './demo-tools.ts';
import type { DemoToolContext } from './demo-tools.ts';
import {
  authorizeUrl,
  bookingAnswerSchema,
  bookingMessage,
  bookingOutcome,
  bookingRequestedSchema,
  connectMessage,
  connectOutcome,
} from './elicitation-flows.ts';
import { listToolsPage } from './tool-pagination.ts';

/** The `/modern/mcp` endpoint: a stateless 2026-07-28 server built per request. */
export interface ModernEndpoint {
  /** Serves one HTTP request (body already parsed by the router, or undefined for GET/DELETE). */
  handle(request: IncomingMessage, response: ServerResponse, parsedBody: unknown): Promise<void>;
  /** Publishes `notifications/tools/list_changed` on every open `subscriptions/listen` stream. */
  notifyToolsChanged(): void;
  /** Aborts in-flight modern exchanges (open listen streams included). */
  close(): Promise<void>;
}

/** The `inputRequests` key of `book_table`'s form. */
const BOOKING_KEY = 'confirm';
/** The `inputRequests` key of `connect_account`'s URL. */
const AUTHORIZE_KEY = 'authorize';

type ModernCallResult = CallToolResult | InputRequiredResult;

function toProtocolError(error: unknown): unknown {
  return error instanceof DemoProtocolError ? new ProtocolError(error.code, error.message) : error;
}

function toolContext(request: CallToolRequest, context: ServerContext): DemoToolContext {
  const progressToken = request.params._meta?.progressToken;
  return {
    signal: context.mcpReq.signal,
    async reportProgress(progress) {
      if (progressToken === undefined || context.mcpReq.signal.aborted) return;
      await context.mcpReq.notify({
        method: 'notifications/progress',
        params: { progressToken, ...progress },
      });
    },
  };
}

/**
 * `book_table` over MRTR. First round: a form elicitation plus a signed `requestState` carrying
 * the arguments. Retry (from any client): the verified state and the `confirm` response decide.
 */
async function bookTable(
  state: DemoServerState,
  rawArguments: unknown,
  context: ServerContext,
): Promise<ModernCallResult> {
  const parsed = parseToolArguments('book_table', bookTableInput, rawArguments);
  if (!parsed.ok) return parsed.result;
  const saved = context.mcpReq.requestState<DemoRequestState>();
  const response = inputResponse(context.mcpReq.inputResponses, BOOKING_KEY);
  if (saved === undefined || response.kind !== 'elicit') {
    const requestState = await state.requestStateCodec.mint({
      tool: 'book_table',
      arguments: { restaurant: parsed.value.restaurant },
    });
    return inputRequired({
      inputRequests: {
        [BOOKING_KEY]: inputRequired.elicit({
          message: bookingMessage(parsed.value.restaurant),
          requestedSchema: bookingRequestedSchema,
        }),
      },
      requestState,
    });
  }
  if (saved.tool !== 'book_table') {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      'requestState belongs to another tool',
    );
  }
  const content =
    response.action === 'accept'
      ? (acceptedContent(context.mcpReq.inputResponses, BOOKING_KEY, bookingAnswerSchema) ??
        response.content)
      : undefined;
  return bookingOutcome(saved.arguments.restaurant, response.action, content);
}

/**
 * `connect_account` over MRTR with a URL-mode elicitation. The 2026-07-28 wire has no
 * `elicitationId`, so the id lives in the signed `requestState` and in the URL.
 */
async function connectAccount(
  state: DemoServerState,
  rawArguments: unknown,
  context: ServerContext,
): Promise<ModernCallResult> {
  const parsed = parseToolArguments('connect_account', connectAccountInput, rawArguments);
  if (!parsed.ok) return parsed.result;
  const saved = context.mcpReq.requestState<DemoRequestState>();
  const response = inputResponse(context.mcpReq.inputResponses, AUTHORIZE_KEY);
  if (saved === undefined || response.kind !== 'elicit') {
    const elicitationId = randomUUID();
    state.authorizations.register(elicitationId);
    const requestState = await state.requestStateCodec.mint({
      tool: 'connect_account',
      arguments: { service: parsed.value.service },
      elicitationId,
    });
    return inputRequired({
      inputRequests: {
        [AUTHORIZE_KEY]: inputRequired.elicitUrl({
          message: connectMessage(parsed.value.service),
          url: authorizeUrl(state.url, elicitationId),
        }),
      },
      requestState,
    });
  }
  if (saved.tool !== 'connect_account') {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      'requestState belongs to another tool',
    );
  }
  return connectOutcome(
    saved.arguments.service,
    response.action,
    state.authorizations.wasVisited(saved.elicitationId),
  );
}

/** Builds the per-request server: custom paginated `tools/list` and a `tools/call` dispatcher. */
function createModernServer(state: DemoServerState): McpServer {
  const server = new McpServer(
    { name: 'switchboard-demo-modern', version: '1.0.0' },
    {
      capabilities: { tools: { listChanged: true } },
      instructions: 'Switchboard demo server (2026-07-28 era, stateless, MRTR).',
      requestState: { verify: state.requestStateCodec.verify },
    },
  );
  server.server.setRequestHandler('tools/list', (request) => {
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
      throw toProtocolError(error);
    }
  });
  server.server.setRequestHandler('tools/call', async (request, context) => {
    const name = request.params.name;
    const tool = state.findTool(name);
    if (tool === undefined) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
    }
    if (name === 'book_table') return await bookTable(state, request.params.arguments, context);
    if (name === 'connect_account') {
      return await connectAccount(state, request.params.arguments, context);
    }
    if (tool.call === undefined) {
      throw new ProtocolError(ProtocolErrorCode.InternalError, `No implementation for ${name}`);
    }
    try {
      return await tool.call(request.params.arguments, toolContext(request, context));
    } catch (error) {
      throw toProtocolError(error);
    }
  });
  return server;
}

/**
 * Creates `/modern/mcp` on `@modelcontextprotocol/server` v2: `createMcpHandler` (one server
 * instance per request, MRTR `input_required` results, `subscriptions/listen` for list changes)
 * behind `toNodeHandler`. 2025-era requests get the SDK's default stateless legacy fallback.
 */
export function createModernEndpoint(state: DemoServerState): ModernEndpoint {
  const handler = createMcpHandler(() => createModernServer(state), {
    onerror: () => {
      // Rejected requests and client disconnects are expected in fault tests.
    },
  });
  const nodeHandler = toNodeHandler(handler);
  return {
    async handle(request, response, parsedBody) {
      await nodeHandler(request as NodeIncomingMessageLike, response, parsedBody);
    },
    notifyToolsChanged() {
      handler.notify.toolsChanged();
    },
    async close() {
      await handler.close();
    },
  };
}
