import { SwitchboardError } from '../errors/switchboard-error.ts';
import { toolError } from '../tools/tool-errors.ts';
import type { ApprovalPredicate, Tool, ToolContext } from '../tools/tool-types.ts';
import type {
  InputRequest,
  Interrupt,
  JsonSchema,
  ToolAnnotations,
} from '../vocabulary/interrupts.ts';
import type { Item, Usage } from '../vocabulary/items.ts';
import type { ExecuteInput, MessageInput } from './agent-options.ts';
import type { RunHandle, RunResult } from './run-result.ts';

/** Options of `Agent.asTool` (docs/conversations.md, "Sub-agents"). */
export interface AgentToolOptions {
  /** Provider-facing tool name, `^[a-zA-Z0-9_-]{1,64}$`. Default: the agent's name. */
  name?: string;
  /** What the parent's model reads about the sub-agent: when to hand it work. */
  description: string;
  /**
   * JSON Schema of the arguments. Default: `{ input: string }` (required), the task for the
   * sub-agent in words, sent to it as one user message.
   */
  inputSchema?: JsonSchema;
  /**
   * The sub-agent's first messages, from the parent model's arguments. Default: `args.input`
   * when it is a string, else the arguments as JSON.
   */
  messages?(args: unknown): MessageInput | MessageInput[];
  /**
   * The tool's output from the sub-agent's finished run (any value a tool may return). Default:
   * the text of its last assistant message.
   */
  output?(result: RunResult): unknown;
  /** Hold each call for approval before the sub-agent starts: always, or when it says so. */
  needsApproval?: boolean | ApprovalPredicate;
  annotations?: ToolAnnotations;
  /**
   * How many sub-agent runs deep a call of this tool may start one (the parent's own run is
   * depth 0, the run this tool starts from it 1). An agent that is its own tool, or two that
   * call each other, would otherwise nest runs for as long as the model asks: a call past the
   * limit gets an error output (code `failed`) and starts nothing. A positive integer; default 5.
   */
  maxDepth?: number;
}

/** The default {@link AgentToolOptions.maxDepth}. */
const DEFAULT_MAX_DEPTH = 5;

/**
 * The depth of each nested thread whose run a sub-agent tool of this process is running now,
 * by thread id (absent: a top-level thread, depth 0). A tool call reads its own run's thread
 * here; a resume after a reload sets it again from the stored state.
 */
const nestedDepths = new Map<string, number>();

/** What {@link agentAsTool} uses of an `Agent` (structural: `agent.ts` imports this file). */
export interface SubAgent {
  readonly name: string;
  execute(input: ExecuteInput): RunHandle;
  abandonPause(threadId: string): Promise<boolean>;
}

/** The agent behind each tool {@link agentAsTool} made (see {@link subAgentOf}). */
const subAgents = new WeakMap<Tool, SubAgent>();

/**
 * The sub-agent behind `tool` when {@link agentAsTool} made it: a parent whose pause is
 * abandoned closes the nested pause through it (`abandon-pause.ts`).
 */
export function subAgentOf(tool: Tool | undefined): SubAgent | undefined {
  return tool === undefined ? undefined : subAgents.get(tool);
}

/**
 * What a parent call that waits for its sub-agent stores (`ToolContext.interrupt`'s resume
 * state): the nested run to resume, its held call, and the usage already added to the parent.
 */
interface SubAgentResumeState {
  kind: 'switchboard.sub-agent';
  threadId: string;
  runId: string;
  callId: string;
  reportedUsage: Usage;
  /** The nested run's depth (1: started from a top-level run). Absent in older rows: 1. */
  depth?: number;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const DEFAULT_INPUT_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { input: { type: 'string', description: 'The task for the sub-agent, in words.' } },
  required: ['input'],
};

/**
 * `agent` as a tool of another agent (`Agent.asTool`). Each call is a real run of `agent` in a
 * thread of its own, in `agent`'s history store, its rows linked to the parent's call
 * (`RunRecord.parentCall`). Its chunks reach the parent's run as `tool.nested` chunks of the
 * call; when it pauses, the call ends in an interrupt carrying the nested one
 * (`InputRequest.nested`), so the parent pauses too; answering the parent re-runs this tool
 * with the answer, which resumes the nested run under the same claim rules (the parent's claim
 * first: of two resumes, one proceeds). The nested run's usage is added to the parent's once per
 * token; stopping the parent aborts the call's signal, which stops the nested run.
 *
 * Nesting is limited (`maxDepth`, default 5 runs deep): a call past it gets an error output.
 *
 * @throws SwitchboardError `invalid_input` when the name is not provider-safe, or `maxDepth`
 *   is not a positive integer.
 */
export function agentAsTool(agent: SubAgent, options: AgentToolOptions): Tool {
  const name = options.name ?? agent.name;
  if (!TOOL_NAME.test(name)) {
    throw new SwitchboardError(
      'invalid_input',
      `Tool name "${name}" must match ${TOOL_NAME.source} (provider tool-name rule); pass asTool({ name }).`,
    );
  }
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  if (!Number.isInteger(maxDepth) || maxDepth < 1) {
    throw new SwitchboardError(
      'invalid_input',
      `asTool({ maxDepth }) must be a positive integer; got ${String(options.maxDepth)}.`,
    );
  }
  const definition: Tool = {
    name,
    description: options.description,
    inputSchema: options.inputSchema ?? DEFAULT_INPUT_SCHEMA,
    execute: (args, context) => runSubAgent(agent, { ...options, maxDepth }, args, context),
  };
  if (options.needsApproval !== undefined) definition.needsApproval = options.needsApproval;
  if (options.annotations !== undefined) definition.annotations = options.annotations;
  subAgents.set(definition, agent);
  return definition;
}

/** One call of the sub-agent tool: a new nested run, or the resume of the one it waits for. */
async function runSubAgent(
  agent: SubAgent,
  options: AgentToolOptions & { maxDepth: number },
  args: unknown,
  context: ToolContext,
): Promise<unknown> {
  const depth = (nestedDepths.get(context.threadId) ?? 0) + 1;
  if (context.resume === undefined && depth > options.maxDepth) {
    return toolError(
      'failed',
      `The sub-agent ${agent.name} was not started: this call is already ${depth - 1} sub-agent runs deep (maxDepth ${options.maxDepth}). Answer with what you have.`,
    );
  }
  const parentCall = { threadId: context.threadId, runId: context.runId, callId: context.callId };
  const shared = { runContext: context.runContext, signal: context.signal, parentCall };
  const resume = context.resume;
  let reported: Usage = { inputTokens: 0, outputTokens: 0 };
  let handle: RunHandle;
  let nestedDepth = depth;
  let nestedThreadId: string;
  if (resume === undefined) {
    nestedThreadId = crypto.randomUUID();
    nestedDepths.set(nestedThreadId, nestedDepth);
    handle = startNested(agent, nestedThreadId, () => ({
      ...shared,
      threadId: nestedThreadId,
      messages: options.messages?.(args) ?? defaultMessages(args),
    }));
  } else {
    const state = readResumeState(resume.resumeState);
    reported = state.reportedUsage;
    nestedDepth = state.depth ?? 1;
    nestedThreadId = state.threadId;
    nestedDepths.set(nestedThreadId, nestedDepth);
    const resolution = { ...resume.resolution, callId: state.callId };
    handle = startNested(agent, nestedThreadId, () => ({
      ...shared,
      threadId: state.threadId,
      resolutions: [resolution],
    }));
  }
  let result: RunResult;
  try {
    for await (const chunk of handle.chunks) context.reportNested?.(chunk);
    result = await handle.result();
  } finally {
    nestedDepths.delete(nestedThreadId);
  }
  const spent = subtractUsage(result.usage, reported);
  if (spent !== undefined) context.reportUsage?.(spent);

  if (result.status === 'completed') {
    return options.output === undefined ? lastAssistantText(result.output) : options.output(result);
  }
  const held = result.interrupts[0];
  if (result.status === 'paused' && held !== undefined) {
    const state: SubAgentResumeState = {
      kind: 'switchboard.sub-agent',
      threadId: result.threadId,
      runId: result.runId,
      callId: held.callId,
      reportedUsage: result.usage,
      depth: nestedDepth,
    };
    return context.interrupt(nestedRequest(agent.name, result, held), state);
  }
  if (result.status === 'cancelled') {
    return toolError('cancelled', `The sub-agent ${agent.name} was stopped.`);
  }
  throw (
    result.error ??
    new SwitchboardError('tool_execution_failed', `The sub-agent ${agent.name} ended unfinished.`)
  );
}

/** `agent.execute(input())`; the thread's depth is forgotten when it throws. */
function startNested(agent: SubAgent, threadId: string, input: () => ExecuteInput): RunHandle {
  try {
    return agent.execute(input());
  } catch (error) {
    nestedDepths.delete(threadId);
    throw error;
  }
}

/**
 * The parent call's request for the nested run's held call: its mode and request fields, and
 * the nested interrupt itself (with where its run lives).
 */
function nestedRequest(agentName: string, result: RunResult, held: Interrupt): InputRequest {
  const request: InputRequest = {
    mode: held.mode,
    nested: { ...held, agent: agentName, threadId: result.threadId, runId: result.runId },
  };
  if (held.message !== undefined) request.message = held.message;
  if (held.requestedSchema !== undefined) request.requestedSchema = held.requestedSchema;
  if (held.url !== undefined) request.url = held.url;
  if (held.elicitationId !== undefined) request.elicitationId = held.elicitationId;
  if (held.reissued === true) request.reissued = true;
  return request;
}

/** @throws SwitchboardError `invalid_input` when the stored state is not a sub-agent's. */
function readResumeState(value: unknown): SubAgentResumeState {
  const state = value as Partial<SubAgentResumeState> | null;
  if (
    state === null ||
    typeof state !== 'object' ||
    state.kind !== 'switchboard.sub-agent' ||
    typeof state.threadId !== 'string' ||
    typeof state.callId !== 'string'
  ) {
    throw new SwitchboardError(
      'invalid_input',
      'The stored state of this sub-agent call is not a sub-agent run to resume.',
    );
  }
  return {
    ...(state as SubAgentResumeState),
    reportedUsage: state.reportedUsage ?? { inputTokens: 0, outputTokens: 0 },
  };
}

function defaultMessages(args: unknown): MessageInput {
  const input = (args as { input?: unknown } | null)?.input;
  return typeof input === 'string' ? input : JSON.stringify(args);
}

function lastAssistantText(items: readonly Item[]): string {
  for (let index = items.length - 1; index >= 0; index--) {
    const item = items[index];
    if (item?.type === 'message' && item.role === 'assistant') return item.content;
  }
  return '';
}

/** `total - reported`, or undefined when nothing new was spent. */
function subtractUsage(total: Usage, reported: Usage): Usage | undefined {
  const spent: Usage = {
    inputTokens: total.inputTokens - reported.inputTokens,
    outputTokens: total.outputTokens - reported.outputTokens,
  };
  if (total.cachedInputTokens !== undefined) {
    spent.cachedInputTokens = total.cachedInputTokens - (reported.cachedInputTokens ?? 0);
  }
  if (total.reasoningTokens !== undefined) {
    spent.reasoningTokens = total.reasoningTokens - (reported.reasoningTokens ?? 0);
  }
  const any = Object.values(spent).some((count) => count > 0);
  return any ? spent : undefined;
}
