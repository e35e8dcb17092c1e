import {
  isSwitchboardError,
  isToolInterruptResult,
  type InputRequest,
  type Interrupt,
  type McpServer,
  type McpToolDescriptor,
  type Resolution,
  type ToolContext,
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
 * progress and elicitation answered by the user through `handlers`.
 *
 * - 2025-era servers push `elicitation/create` while the call is open:
 *   `McpServer.callTool(name, args, { onProgress, onInput })` answers it through `onInput`.
 * - 2026-07-28 servers answer `input_required` (MRTR) instead, which `callTool` reports as an
 *   error. So for them the tool's own `execute` runs with a `ToolContext` whose `interrupt`
 *   ends the call for now; after the user answered, the call is made again with
 *   `context.resume` (the answer and the server's `requestState`), exactly as an agent run
 *   resumes it — until the server returns a result.
 *
 * Never rejects for tool failures: those come back as error outputs.
 */
export async function runTool(
  server: McpServer,
  tool: McpToolDescriptor,
  args: Record<string, unknown>,
  handlers: RunToolHandlers,
): Promise<ToolOutput> {
  const callId = `runner-${crypto.randomUUID()}`;
  const ask = async (request: InputRequest): Promise<Resolution> => {
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
    return { callId, ...(await handlers.ask(interrupt)) };
  };
  try {
    if (server.getSnapshot().protocolEra !== 'modern') {
      return await server.callTool(tool.originalName, args, {
        signal: handlers.signal,
        onProgress: handlers.onProgress,
        onInput: ask,
      });
    }
    let resume: ToolContext['resume'];
    for (;;) {
      const context: ToolContext = {
        signal: handlers.signal,
        callId,
        threadId: '',
        runId: '',
        runContext: undefined,
        reportProgress: handlers.onProgress,
        requestInput: ask,
        interrupt: (request, resumeState) => ({
          kind: 'switchboard.interrupt',
          request,
          resumeState,
        }),
        ...(resume === undefined ? {} : { resume }),
      };
      const result = await tool.execute(args, context);
      if (!isToolInterruptResult(result)) return result as ToolOutput;
      resume = { resolution: await ask(result.request), resumeState: result.resumeState };
    }
  } catch (error) {
    const failure = isSwitchboardError(error)
      ? { code: error.code, message: error.message }
      : { code: 'error', message: error instanceof Error ? error.message : String(error) };
    return { text: failure.message, isError: true, error: failure };
  }
}
