import {
  ProtocolError,
  UrlElicitationRequiredError,
  isInputRequiredResult,
  type Client,
} from '@modelcontextprotocol/client';
import { SwitchboardError } from '../../errors/switchboard-error.ts';
import type { ToolContext } from '../../tools/tool-types.ts';
import { toolError } from '../../tools/tool-errors.ts';
import type { ToolInterruptResult } from '../../vocabulary/interrupts.ts';
import type { ToolOutput } from '../../vocabulary/items.ts';
import { CallTimer } from '../call-timer.ts';
import { CALL_TOOL_RESULT_SCHEMA } from '../call-tool-result-schema.ts';
import { CALL_ID_META_KEY } from '../elicitation-router.ts';
import { mapCallToolResult, type CallToolResultLike } from '../map-call-tool-result.ts';
import type { McpToolTarget } from '../tool-catalog.ts';
import { toMcpError } from '../to-mcp-error.ts';
import { interruptForAuthorization, resumeAuthorization } from './authorization.ts';
import type { McpCallScope } from './call-scope.ts';
import { interruptForMrtr, resumeMrtr } from './mrtr.ts';
import { interruptForPushed, resumePushed } from './pushed.ts';
import { FRESH_CALL, type McpResumeState, type ResumeOutcome } from './resume-state.ts';
import { mcpParamHeaders } from './param-headers.ts';
import { checkStructuredContent } from './structured-content.ts';
import { interruptForUrlRequired, resumeUrlRequired } from './url-required.ts';
import {
  followTask,
  resumeTask,
  taskOfResult,
  taskResumeState,
  type TaskFollowScope,
} from './task.ts';

/** 2026-07-28 `HeaderMismatch`: an `Mcp-Param-*` header disagreed with the body, or was missing. */
export const HEADER_MISMATCH = -32020;

/** The SDK's own timeout is switched off (our {@link CallTimer} keeps time); max setTimeout. */
const NO_SDK_TIMEOUT = 2_147_483_647;
/** Numbers each call in flight: two threads may use the same model call id at once. */
let callsStarted = 0;

/**
 * Calls one MCP tool for the agent: progress forwarded, our clocks (idle timeout reset by
 * progress, absolute cap, both paused while a human answers), and every way a server asks the
 * human turned into the same interrupt: a pushed `elicitation/create` (2025 era, live wait), an
 * `input_required` result (MRTR, stored `requestState`), error -32042 (URL required) and a
 * `needs_auth` failure (sign in). Each way has its `resumeX`/`interruptForX` in this folder.
 * A `-32020` (HeaderMismatch) re-lists the tools and retries once.
 * A server that answers with a task (both eras) is followed to the task's end (`task.ts`); a
 * resumed call that holds a task follows it instead of calling the tool again.
 *
 * @returns The mapped result (secrets scrubbed, structured content checked), an error output
 *   (JSON-RPC errors, refusals), or an interrupt.
 * @throws SwitchboardError `outcome_unknown` (sent, answer lost), `timeout`, `needs_auth` (direct
 *   calls, or sign-ins exhausted), or any connection failure of `McpConnection.use`.
 */
export async function callMcpTool(
  scope: McpCallScope,
  tool: McpToolTarget,
  args: Record<string, unknown>,
  context: ToolContext,
): Promise<ToolOutput | ToolInterruptResult> {
  const first = await callOnce(scope, tool, args, context);
  if (!isHeaderMismatch(first)) return first;
  // -32020 (2026-07-28 "Custom headers from tool parameters"): the headers were mirrored by a
  // listing the server no longer agrees with. The server refused before running the tool, so,
  // as SDK v2's `callTool` does, list again and retry once with the new declarations; a second
  // mismatch (or a tool no longer listed) is the call's output.
  const relisted = await scope.relistTool(tool.name);
  if (relisted === undefined) return first;
  return await callOnce(scope, relisted, args, context);
}

function isHeaderMismatch(result: ToolOutput | ToolInterruptResult): boolean {
  return 'text' in result && result.isError === true && result.error?.code === HEADER_MISMATCH;
}

/** One `tools/call` round (see {@link callMcpTool}). */
async function callOnce(
  scope: McpCallScope,
  tool: McpToolTarget,
  args: Record<string, unknown>,
  context: ToolContext,
): Promise<ToolOutput | ToolInterruptResult> {
  const resumed = resumeCall(scope, context);
  if (resumed.settled !== undefined) return resumed.settled;
  const plan = resumed.plan;

  const timer = new CallTimer(scope.timeoutMs, scope.maxTotalTimeoutMs, context.signal);
  // The key server requests are routed by: unique to this call in flight (a call id alone is
  // not: two threads may both have a call `call_1` running).
  const callKey = `${context.callId}#${++callsStarted}`;
  /** Set once the `tools/call` request is handed to the client: from then on it may arrive. */
  let dispatched = false;
  const follow: TaskFollowScope = {
    scope,
    context,
    timer,
    callKey,
    toolName: tool.name,
    // Server text reaches history and the model: secrets this client sent are taken out.
    finish: (result) =>
      scope.connection.scrubber.scrubDeep(
        checkStructuredContent(mapCallToolResult(result as CallToolResultLike), tool.outputSchema),
      ),
  };
  /** A 2025 task's pushed questions are stored with the task, so a reload polls it again. */
  const followPushed = (taskId: string): void => {
    scope.activeCalls.set(
      callKey,
      interruptForPushed(scope, context, timer, plan.storedAnswer, (request) => ({
        ...taskResumeState(taskId, 'legacy'),
        pushed: request,
      })),
    );
  };
  let era: 'legacy' | 'modern' = 'legacy';
  try {
    if (plan.task !== undefined) {
      dispatched = true;
      if (plan.task.era === 'legacy') followPushed(plan.task.taskId);
      return await followTask(follow, plan.task);
    }
    const result = await scope.connection.use(
      context.runContext,
      async (client: Client) => {
        era = client.getProtocolEra() === 'modern' ? 'modern' : 'legacy';
        // 2025 era only (2026-07-28 has no server-to-client requests): a server may push
        // requests (`elicitation/create`) while this call runs; they are routed to it. Those on
        // this session's shared stream (legacy SSE) are this call's: the session carries no
        // other call while this one runs (`exclusive` below).
        let detach: (() => void) | undefined;
        if (era === 'legacy') {
          scope.activeCalls.set(
            callKey,
            interruptForPushed(scope, context, timer, plan.storedAnswer),
          );
          detach = scope.router.attach(client, callKey);
        }
        // 2026-07-28 over HTTP: `x-mcp-header` arguments also go as `Mcp-Param-*` headers (the
        // SDK mirrors only in its `callTool`, and never in browsers). Other transports and the
        // 2025 era ignore or need none.
        const headers = era === 'modern' ? mcpParamHeaders(tool.inputSchema, args) : {};
        // 2025-11-25: a task is asked for (`params.task`) when both the server and the tool
        // support it; a 2026-07-28 server decides by itself (we declare the extension).
        const asTask =
          era === 'legacy' &&
          tool.taskSupport !== undefined &&
          (
            client.getServerCapabilities() as {
              tasks?: { requests?: { tools?: { call?: unknown } } };
            }
          )?.tasks?.requests?.tools?.call !== undefined;
        dispatched = true;
        try {
          return await client.request(
            {
              method: 'tools/call',
              params: {
                name: tool.name,
                arguments: args,
                _meta: { [CALL_ID_META_KEY]: callKey },
                ...plan.retry,
                ...(asTask ? { task: {} } : {}),
              },
            },
            CALL_TOOL_RESULT_SCHEMA,
            {
              signal: timer.signal,
              timeout: NO_SDK_TIMEOUT,
              allowInputRequired: true,
              ...(Object.keys(headers).length === 0 ? {} : { headers }),
              onprogress: (progress) => {
                timer.touch();
                context.reportProgress({
                  progress: progress.progress,
                  ...(progress.total === undefined ? {} : { total: progress.total }),
                  ...(progress.message === undefined
                    ? {}
                    : { message: scope.connection.scrubber.scrub(progress.message) }),
                });
              },
            },
          );
        } finally {
          detach?.();
        }
      },
      { signal: timer.signal, exclusive: true },
    );
    if (isInputRequiredResult(result)) return interruptForMrtr(result, scope, context);
    const task = taskOfResult(result);
    if (task !== undefined) {
      if (era === 'legacy') followPushed(task.taskId);
      return await followTask(follow, { taskId: task.taskId, era }, task);
    }
    return follow.finish(result);
  } catch (caught) {
    if (caught instanceof SwitchboardError && caught.code === 'needs_auth') {
      const interrupt = interruptForAuthorization(
        caught,
        plan.authorizationAttempts,
        tool.name,
        scope,
        context,
      );
      if (interrupt !== undefined) return interrupt;
      throw caught;
    }
    if (dispatched && caught instanceof SwitchboardError && caught.code === 'connection_lost') {
      throw outcomeUnknown(scope.where, tool.name, caught);
    }
    // The connection classifies failures; the server's own error is kept as the cause.
    const error: unknown =
      caught instanceof SwitchboardError && caught.cause !== undefined ? caught.cause : caught;
    if (error instanceof UrlElicitationRequiredError) {
      return interruptForUrlRequired(error, plan.shownUrls, scope, context);
    }
    if (error instanceof ProtocolError) {
      return toolError(
        error.code,
        scope.connection.scrubber.scrub(
          `${scope.where} returned error ${error.code}: ${error.message}`,
        ),
      );
    }
    const reason: unknown = timer.signal.reason;
    if (timer.signal.aborted && reason instanceof SwitchboardError && reason.code === 'timeout')
      throw reason;
    const failure = toMcpError(caught, scope.where, context.signal);
    const message = scope.connection.scrubber.scrub(failure.message);
    if (message === failure.message) throw failure;
    throw new SwitchboardError(failure.code, message, {
      cause: failure.cause,
      ...(failure.details === undefined ? {} : { details: { ...failure.details } }),
    });
  } finally {
    timer.dispose();
    scope.activeCalls.delete(callKey);
  }
}

/** Applies the stored {@link McpResumeState} of a resumed call (none: a fresh call). */
function resumeCall(scope: McpCallScope, context: ToolContext): ResumeOutcome {
  const resume = context.resume;
  const state = resume?.resumeState as McpResumeState | undefined;
  if (resume === undefined || state === undefined) return { plan: FRESH_CALL };
  switch (state.kind) {
    case 'mrtr':
      return resumeMrtr(state, resume.resolution, scope, context);
    case 'pushed':
      return resumePushed(state, resume.resolution);
    case 'url-required':
      return resumeUrlRequired(state, resume.resolution);
    case 'authorization':
      return resumeAuthorization(state, resume.resolution, scope);
    case 'task':
      return resumeTask(state, resume.resolution, scope, context);
    default:
      return { plan: FRESH_CALL };
  }
}

/**
 * The `outcome_unknown` error of a call whose request went out and whose answer was lost: the
 * server may have run the tool, so the message tells the model (and the user) not to repeat a
 * side effect blindly.
 */
function outcomeUnknown(
  where: string,
  toolName: string,
  cause: SwitchboardError,
): SwitchboardError {
  return new SwitchboardError(
    'outcome_unknown',
    `The call to ${toolName} was sent to ${where}, but the connection broke before its answer ` +
      'arrived, so whether the tool ran is unknown. Do not repeat it blindly if it has side ' +
      'effects: check whether it took effect first.',
    { cause, details: { tool: toolName, reason: cause.code } },
  );
}
