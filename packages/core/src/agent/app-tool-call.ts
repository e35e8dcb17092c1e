import { SwitchboardError, isSwitchboardError } from '../errors/switchboard-error.ts';
import type { RunRecord } from '../history/history-store.ts';
import { isAppVisible } from '../mcp/apps/tool-ui-meta.ts';
import type { McpServer } from '../mcp/mcp-server.ts';
import type { Tool } from '../tools/tool-types.ts';
import type { FunctionCallItem, ToolOutput } from '../vocabulary/items.ts';
import type { AppViewRef } from '../vocabulary/tool-ui.ts';
import type { AgentOptions } from './agent-options.ts';
import type { RunHandle } from './run-result.ts';

/**
 * A `tools/call` an MCP Apps view made (spec 2026-01-26, "Interactive Updates"), for
 * `Agent.callToolFromApp`.
 */
export interface AppToolCallInput {
  /** The thread the view is shown in; the call is recorded there as a run of its own. */
  threadId: string;
  /** The view that asks; its `server` is the only server whose tools it may call. */
  view: AppViewRef;
  /** The MCP tool name, as the view sent it (`params.name`). */
  name: string;
  /** The call's arguments (`params.arguments`). Default `{}`. */
  arguments?: Record<string, unknown>;
  /** Passed to the approval policy, hooks and the server's headers function. */
  runContext?: unknown;
  /** Stops the run (as `RunHandle.stop`); a pause it reached stays answerable. */
  signal?: AbortSignal;
}

/** What `Agent.callToolFromApp` returns: the run that records the call, and its output. */
export interface AppToolCallHandle extends RunHandle {
  /** The recorded call's id (`app_…`), known at once. */
  readonly callId: string;
  /**
   * The call's output, for the view: at once when the tool ran, else after the approval the run
   * paused on was answered — here, in another tab, or after a reload of this page (the thread's
   * history is read). A call that was refused, stopped or not made gets an error output (its
   * `error.code` says why: `rejected`, `cancelled`, `run_in_progress`, `tool_not_found` …);
   * never rejects.
   *
   * @param options `timeoutMs`: how long to wait for an answer to the approval (default 10
   *   minutes), then an error output `timeout` (the approval still waits in the thread);
   *   `signal`: stop waiting (an error output `aborted`).
   */
  output(options?: { signal?: AbortSignal; timeoutMs?: number }): Promise<ToolOutput>;
}

/** An app call of a new run: what `Run` needs to record and start it. */
export interface AppCallRequest {
  callId: string;
  view: AppViewRef;
  name: string;
  arguments: Record<string, unknown>;
}

/** The recorded call of an app-call run and the tool it calls (absent: no such tool now). */
export interface AppCall {
  item: FunctionCallItem;
  tool: Tool | undefined;
}

/**
 * Looks the view's tool up on the view's own server — visibility naming `app` (spec
 * 2026-01-26, "Visibility"; `McpServer.appTool`) — and makes the call item to record.
 *
 * @throws SwitchboardError `tool_not_found` when the agent has no MCP server of the view's name,
 *   or that server no tool of that name the app may call; what listing the tools throws.
 */
export async function startAppCall(
  request: AppCallRequest,
  agent: Readonly<AgentOptions>,
  signal: AbortSignal,
): Promise<AppCall> {
  const server = serverOf(agent, request.view.server);
  if (server === undefined) {
    throw new SwitchboardError(
      'tool_not_found',
      `The agent has no MCP server "${request.view.server}" whose app could call "${request.name}".`,
    );
  }
  const tool = await server.appTool(request.name, { signal });
  return {
    item: {
      type: 'function_call',
      callId: request.callId,
      name: tool.name,
      arguments: JSON.stringify(request.arguments),
      requestedBy: request.view,
    },
    tool,
  };
}

/**
 * The app call a paused run holds, when the run is an app-call run (its first item is a call a
 * view asked for), with its tool looked up again; `undefined` for a model's run. A tool that is
 * gone (or a server that cannot list now) leaves `tool` undefined: the call gets
 * `tool_not_found`, so it still has exactly one output.
 */
export async function resumedAppCall(
  paused: RunRecord | undefined,
  agent: Readonly<AgentOptions>,
  signal: AbortSignal,
): Promise<AppCall | undefined> {
  const first = paused?.items[0];
  if (first?.type !== 'function_call' || first.requestedBy === undefined) return undefined;
  const server = serverOf(agent, first.requestedBy.server);
  let tool: Tool | undefined;
  try {
    const listed = (await server?.listTools({ signal })) ?? [];
    tool = listed.find((candidate) => candidate.name === first.name && isAppVisible(candidate));
  } catch (error) {
    if (signal.aborted || isSwitchboardError(error, 'aborted')) throw error;
    tool = undefined;
  }
  return { item: first, tool };
}

/**
 * An app call is its own run, so it waits for nothing and abandons nothing: on a thread whose
 * last run is running, or paused on a question the user has not answered, it is refused.
 *
 * @throws SwitchboardError `run_in_progress`.
 */
export function refuseBusyThread(threadId: string, last: RunRecord | undefined): void {
  if (last?.status !== 'running' && last?.status !== 'paused') return;
  throw new SwitchboardError(
    'run_in_progress',
    last.status === 'running'
      ? `Thread ${threadId} has a run in progress; the app's call can be made once it ended.`
      : `Thread ${threadId} waits for an answer; the app's call can be made once it was given.`,
  );
}

function serverOf(agent: Readonly<AgentOptions>, name: string): McpServer | undefined {
  return agent.mcpServers?.find((candidate) => candidate.name === name);
}
