import { messageOf } from '../errors/message-of.ts';
import { isSwitchboardError } from '../errors/switchboard-error.ts';
import { toolError } from '../tools/tool-errors.ts';
import type { FunctionCallItem, ToolOutput, Usage } from '../vocabulary/items.ts';
import {
  isToolInterruptResult,
  toToolOutput,
  type NestedChunkSource,
  type Tool,
  type ToolProgress,
} from '../tools/tool-types.ts';
import type { InputRequest, ToolInterruptResult, ToolResume } from '../vocabulary/interrupts.ts';
import type { Resolution } from '../vocabulary/interrupts.ts';

/** What {@link executeToolCall} needs from the run. */
export interface ToolCallScope {
  signal: AbortSignal;
  threadId: string;
  runId: string;
  runContext: unknown;
  /** Set when the call runs again after a pause. */
  resume: ToolResume | undefined;
  requestInput(request: InputRequest, resumeState: unknown): Promise<Resolution>;
  onProgress(call: FunctionCallItem, progress: ToolProgress): void;
  /** See `ToolContext.reportNested`. */
  onNested(chunk: NestedChunkSource): void;
  /** See `ToolContext.reportUsage`. */
  onUsage(usage: Usage): void;
  /** See `ToolContext.keepResumable`. */
  keepResumable(request: InputRequest, resumeState: unknown): void;
}

/**
 * Runs one model tool call and always returns an output (or the tool's interrupt): unknown
 * tools, unparsable arguments, thrown errors and invalid arguments become error outputs the
 * model can read and correct, never exceptions (docs/architecture.md, "The vocabulary"). Progress
 * is forwarded only while
 * the call is running and only when it increases.
 */
export async function executeToolCall(
  call: FunctionCallItem,
  tool: Tool | undefined,
  scope: ToolCallScope,
): Promise<ToolOutput | ToolInterruptResult> {
  if (tool === undefined) {
    return toolError('tool_not_found', `Unknown tool "${call.name}".`);
  }
  let args: unknown;
  try {
    args = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
  } catch {
    return toolError(
      'invalid_tool_arguments',
      `The arguments for ${call.name} are not valid JSON: ${call.arguments.slice(0, 200)}`,
    );
  }
  let settled = false;
  let lastProgress = -Infinity;
  try {
    const value = await tool.execute(args, {
      signal: scope.signal,
      callId: call.callId,
      threadId: scope.threadId,
      runId: scope.runId,
      runContext: scope.runContext,
      ...(scope.resume === undefined ? {} : { resume: scope.resume }),
      reportProgress(progress) {
        if (settled || !(progress.progress > lastProgress)) return;
        lastProgress = progress.progress;
        scope.onProgress(call, progress);
      },
      requestInput: (request, resumeState) => scope.requestInput(request, resumeState),
      keepResumable(request, resumeState) {
        if (!settled) scope.keepResumable(request, resumeState);
      },
      reportNested(chunk) {
        if (!settled) scope.onNested(chunk);
      },
      reportUsage: (usage) => scope.onUsage(usage),
      interrupt: (request, resumeState) => ({
        kind: 'switchboard.interrupt',
        request,
        resumeState,
      }),
    });
    return isToolInterruptResult(value) ? value : toToolOutput(value);
  } catch (error) {
    if (isSwitchboardError(error)) return toolError(error.code, error.message);
    return toolError('tool_execution_failed', `${call.name} failed: ${messageOf(error)}`);
  } finally {
    settled = true;
  }
}
