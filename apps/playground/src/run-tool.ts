import {
  describeError,
  isSwitchboardError,
  type InputRequest,
  type Interrupt,
  type McpServer,
  type McpToolDescriptor,
  type Resolution,
  type ToolOutput,
  type ToolProgress,
} from '@switchboard/core';

/** What {@link runTool} needs from the page while the tool runs. */
export interface RunToolHandlers {
  /** Aborting cancels the call. */
  signal: AbortSignal;
  /** Every progress report of the tool. */
  onProgress: (progress: ToolProgress) => void;
  /** Shows the server's question (form or URL) and resolves with the user's answer. */
  ask: (interrupt: Interrupt) => Promise<Pick<Resolution, 'action' | 'content'>>;
}

/**
 * Calls one tool of an MCP server directly, outside any agent run (the Tool runner), with
 * `McpServer.callTool(name, args, { onProgress, onInput })`. Whenever the server asks the human
 * — a pushed `elicitation/create` (2025 era) or an `input_required` result (2026-07-28 MRTR) —
 * `onInput` shows the question as an interrupt (the same components as in the chat) and the
 * call goes on with the user's answer.
 *
 * Never rejects: tool errors and connection failures come back as error outputs.
 */
export async function runTool(
  server: McpServer,
  tool: McpToolDescriptor,
  args: Record<string, unknown>,
  handlers: RunToolHandlers,
): Promise<ToolOutput> {
  const callId = `runner-${crypto.randomUUID()}`;
  const onInput = async (request: InputRequest) => {
    const interrupt: Interrupt = {
      callId,
      toolName: tool.originalName,
      server: server.name,
      arguments: args,
      mode: request.mode,
      ...(request.message === undefined ? {} : { message: request.message }),
      ...(request.requestedSchema === undefined
        ? {}
        : { requestedSchema: request.requestedSchema }),
      ...(request.url === undefined ? {} : { url: request.url }),
      ...(request.elicitationId === undefined ? {} : { elicitationId: request.elicitationId }),
      ...(request.reissued === true ? { reissued: true } : {}),
    };
    return await handlers.ask(interrupt);
  };
  try {
    return await server.callTool(tool.originalName, args, {
      signal: handlers.signal,
      onProgress: handlers.onProgress,
      onInput,
    });
  } catch (error) {
    const failure = isSwitchboardError(error)
      ? { code: error.code, message: error.message }
      : { code: 'error', message: describeError(error).details.message };
    return { text: failure.message, isError: true, error: failure };
  }
}
