import { NEVER_ABORTED } from '../../internal/linked-signal.ts';
import type { ToolContext } from '../../tools/tool-types.ts';
import { toolError } from '../../tools/tool-errors.ts';
import type { InputRequest, Resolution, ToolResume } from '../../vocabulary/interrupts.ts';
import type { ToolOutput } from '../../vocabulary/items.ts';
import type { McpToolTarget } from '../tool-catalog.ts';
import { callMcpTool } from './call-mcp-tool.ts';
import type { McpCallScope } from './call-scope.ts';

/** Questions one direct call answers before it gives up on a server that keeps asking. */
const MAX_INPUT_ROUNDS = 10;

/** Direct call ids: unique per process by a counter, across processes by a random prefix. */
const DIRECT_CALL_PREFIX = `direct-${crypto.randomUUID()}`;
let directCalls = 0;

const NO_PROGRESS: ToolContext['reportProgress'] = () => undefined;

const directInterrupt: ToolContext['interrupt'] = (request, resumeState) => ({
  kind: 'switchboard.interrupt',
  request,
  resumeState,
});

/** Options of a call made outside an agent run (see `McpServer.callTool`). */
export interface DirectCallOptions {
  signal?: AbortSignal;
  runContext?: unknown;
  onProgress?: ToolContext['reportProgress'];
  /** Answers the server's questions. Default: decline. */
  onInput?: (request: InputRequest) => Promise<Omit<Resolution, 'callId'> & { callId?: string }>;
}

/**
 * Calls `tool` outside an agent run: the run's pause-and-resume is played here, in a loop. Every
 * interrupt is answered by `onInput` (default: decline) and the call resumed with the answer,
 * for at most {@link MAX_INPUT_ROUNDS} questions (then an `input_rounds_exceeded` error output).
 *
 * @throws What `callMcpTool` throws (`needs_auth` instead of an authorization interrupt).
 */
export async function callToolDirectly(
  scope: McpCallScope,
  tool: McpToolTarget,
  args: Record<string, unknown>,
  options: DirectCallOptions,
): Promise<ToolOutput> {
  // No signal: nothing can stop the call but its own clocks, so none to link to (see NEVER_ABORTED).
  const signal = options.signal ?? NEVER_ABORTED;
  const callId = `${DIRECT_CALL_PREFIX}-${++directCalls}`;
  const ask = async (request: InputRequest): Promise<Resolution> => {
    const answer =
      options.onInput === undefined
        ? { action: 'reject' as const }
        : await options.onInput(request);
    return { ...answer, callId };
  };
  let resume: ToolResume | undefined;
  // Each round answers one question; a server that keeps asking is stopped after a bound.
  for (let round = 0; round < MAX_INPUT_ROUNDS; round++) {
    const result = await callMcpTool(scope, tool, args, {
      signal,
      callId,
      threadId: '',
      runId: '',
      runContext: options.runContext,
      ...(resume === undefined ? {} : { resume }),
      reportProgress: options.onProgress ?? NO_PROGRESS,
      requestInput: ask,
      interrupt: directInterrupt,
    });
    if (!('kind' in result)) return result;
    resume = { resolution: await ask(result.request), resumeState: result.resumeState };
  }
  return toolError(
    'input_rounds_exceeded',
    `${scope.where} kept asking for input (${MAX_INPUT_ROUNDS} rounds); the call was stopped.`,
  );
}
