import { messageOf } from '../errors/message-of.ts';
import { SwitchboardError, isSwitchboardError } from '../errors/switchboard-error.ts';
import type { FunctionCallItem, ToolOutput } from '../vocabulary/items.ts';
import type { Tool } from '../tools/tool-types.ts';
import type { ToolInterruptResult, ToolResume } from '../vocabulary/interrupts.ts';
import type { AgentOptions } from './agent-options.ts';
import type { Chunk } from './chunks.ts';
import { CallTask, parseArguments, type ApprovalHold } from './call-task.ts';
import { executeToolCall } from './execute-tool-call.ts';
import { inProcessSteps, type StepRunner } from './step-runner.ts';
import type { HookScope } from './hooks.ts';
import type { Interrupt } from '../vocabulary/interrupts.ts';
import type { RunJournal } from './run-journal.ts';
import { removedToolOutput, type Toolset } from './toolset.ts';

/** What {@link ToolCalls} needs from its run. */
export interface ToolCallsSetup {
  agent: Readonly<AgentOptions>;
  journal: RunJournal;
  runContext: unknown;
  /** The run's signal: it owns every call it starts or adopts. */
  signal: AbortSignal;
  /** Each tool execution is one step (`tool:<callId>`); default in process. */
  steps?: StepRunner;
}

/**
 * Tool-call execution for one run: starts calls (or holds them for approval), runs the tool
 * hooks and the tool, and reports `tool.call` and `tool.result` through the run's journal, once
 * per call. Every call it starts or adopts belongs to this run (its signal stops it).
 */
export class ToolCalls {
  readonly #setup: ToolCallsSetup;
  #toolset: Toolset | undefined;
  /** The first `beforeToolCall` / `afterToolCall` failure of this run. */
  #hookFailure: SwitchboardError | undefined;
  /** Calls whose `tool.result` this run emitted. */
  readonly #reported = new Set<string>();

  constructor(setup: ToolCallsSetup) {
    this.#setup = setup;
  }

  /** The first tool hook failure, which fails the run once every call is quiet. */
  get hookFailure(): SwitchboardError | undefined {
    return this.#hookFailure;
  }

  /**
   * The run's tools, known once listed (a resumed run builds its tasks before), and again at
   * each turn boundary (`RunToolset`): a call looks its tool up when it starts.
   */
  useToolset(toolset: Toolset): void {
    this.#toolset = toolset;
  }

  get #scope(): HookScope {
    return {
      runId: this.#setup.journal.runId,
      threadId: this.#setup.journal.threadId,
      runContext: this.#setup.runContext,
    };
  }

  /** Makes this run the owner of `task` (a call of the paused run it continues). */
  adopt(task: CallTask): void {
    task.attach({
      signal: this.#setup.signal,
      onProgress: (progress) => {
        this.#setup.journal.emit({
          type: 'tool.progress',
          callId: task.call.callId,
          toolName: task.call.name,
          ...progress,
        });
      },
      onNested: (chunk) => {
        this.#setup.journal.emit({
          type: 'tool.nested',
          callId: task.call.callId,
          toolName: task.call.name,
          // A nested run's chunk, passed through `ToolContext.reportNested` (see `agentAsTool`).
          chunk: chunk as Chunk,
        });
      },
      onUsage: (usage) => this.#setup.journal.addUsage(usage),
    });
  }

  /** Emits `tool.call` and starts the call, or holds it for approval. */
  async start(call: FunctionCallItem): Promise<CallTask> {
    const tool = this.#toolset?.get(call.name);
    const server = tool?.server ?? this.#toolset?.removedBy(call.name);
    this.#setup.journal.emit({
      type: 'tool.call',
      callId: call.callId,
      toolName: call.name,
      ...(server === undefined ? {} : { server }),
      ...(tool?.ui?.resourceUri === undefined ? {} : { ui: { resourceUri: tool.ui.resourceUri } }),
      arguments: parseArguments(call.arguments),
      ...(call.requestedBy === undefined ? {} : { requestedBy: call.requestedBy }),
    });
    const task = this.newTask(call);
    if (tool !== undefined && (await this.#needsApprovalOrCannotTell(tool, call))) {
      task.holdForApproval(approvalInterrupt(call, tool));
    } else {
      task.run();
    }
    return task;
  }

  /** A task owned by this run whose runs go through the hooks, the tool and `tool.result`. */
  newTask(call: FunctionCallItem): CallTask {
    const task = new CallTask(
      call,
      (started, resume, approved) =>
        this.#startTool(call, started, resume, approved).catch((error: unknown) => {
          if (isSwitchboardError(error, 'hook_failed')) this.#hookFailure ??= error;
          throw error;
        }),
      () => this.#toolset?.get(call.name)?.server,
    );
    this.adopt(task);
    return task;
  }

  /**
   * Emits `tool.result` for a call that settled outside {@link #settleOutput} (a refused
   * approval, a live call answered after a resume), unless already reported.
   */
  reportSettled(call: FunctionCallItem, output: ToolOutput): void {
    if (!this.#reported.has(call.callId)) this.#report(call, output);
  }

  /**
   * Fails closed: when the approval policy or `needsApproval` throws, the call waits for a human
   * rather than running unapproved (or failing the turn while its sibling calls still run).
   */
  async #needsApprovalOrCannotTell(tool: Tool, call: FunctionCallItem): Promise<boolean> {
    try {
      return await this.#needsApproval(tool, call);
    } catch {
      return true;
    }
  }

  async #needsApproval(tool: Tool, call: FunctionCallItem): Promise<boolean> {
    const args = parseArguments(call.arguments);
    const { agent, runContext } = this.#setup;
    const policy = agent.approvalPolicy;
    if (policy !== undefined && (await policy(args, tool.annotations, runContext, tool))) {
      return true;
    }
    const own = tool.needsApproval;
    if (typeof own === 'function') return await own(args, tool.annotations, runContext);
    return own === true;
  }

  /** One start of a call's tool (see {@link newTask}). */
  async #startTool(
    call: FunctionCallItem,
    task: CallTask,
    resume: ToolResume | undefined,
    approved: boolean,
  ): Promise<ToolOutput | ToolInterruptResult | ApprovalHold> {
    const agent = this.#setup.agent;
    const tool = this.#toolset?.get(call.name);
    if (resume === undefined) {
      const decision = await runHook('beforeToolCall', () =>
        agent.hooks?.beforeToolCall?.({
          ...this.#scope,
          call,
          tool,
          arguments: parseArguments(call.arguments),
        }),
      );
      if (decision?.action === 'answer') {
        const output =
          typeof decision.output === 'string' ? { text: decision.output } : decision.output;
        return await this.#settleOutput(call, tool, output);
      }
      if (decision?.action === 'interrupt' && !approved) {
        return {
          kind: 'switchboard.approval',
          interrupt: approvalInterrupt(call, tool, decision.message),
        } as const;
      }
    }
    const removedBy = tool === undefined ? this.#toolset?.removedBy(call.name) : undefined;
    if (removedBy !== undefined) {
      return await this.#settleOutput(call, tool, removedToolOutput(call.name, removedBy));
    }
    const steps = this.#setup.steps ?? inProcessSteps;
    const name = `tool:${call.callId}${resume === undefined ? '' : ':resume'}`;
    const result = await steps.run(name, () =>
      executeToolCall(call, tool, {
        // The call's own signal: aborted by whichever run owns the call when it is stopped.
        signal: task.signal,
        threadId: this.#setup.journal.threadId,
        runId: this.#setup.journal.runId,
        runContext: this.#setup.runContext,
        resume,
        requestInput: (request, resumeState) => task.requestInput(request, resumeState),
        onProgress: (_call, progress) => task.progress(progress),
        onNested: (chunk) => task.nested(chunk),
        onUsage: (usage) => task.usage(usage),
        keepResumable: (request, resumeState) =>
          this.#setup.journal.keepResumable({
            call,
            interrupt: task.interruptFor(request),
            resumeState,
          }),
      }),
    );
    if ('kind' in result) return result;
    return await this.#settleOutput(call, tool, result);
  }

  /** Applies `afterToolCall` and emits `tool.result` (unless the call was stopped). */
  async #settleOutput(
    call: FunctionCallItem,
    tool: Tool | undefined,
    output: ToolOutput,
  ): Promise<ToolOutput> {
    const replaced = await runHook('afterToolCall', () =>
      this.#setup.agent.hooks?.afterToolCall?.({ ...this.#scope, call, tool, output }),
    );
    const final = replaced ?? output;
    if (!this.#setup.signal.aborted) this.#report(call, final);
    return final;
  }

  #report(call: FunctionCallItem, output: ToolOutput): void {
    this.#reported.add(call.callId);
    this.#setup.journal.emit({
      type: 'tool.result',
      callId: call.callId,
      toolName: call.name,
      output,
    });
  }
}

/** The approval interrupt of `call` (with the tool's server and annotations when known). */
function approvalInterrupt(
  call: FunctionCallItem,
  tool: Tool | undefined,
  message?: string,
): Interrupt {
  const interrupt: Interrupt = {
    callId: call.callId,
    toolName: call.name,
    arguments: parseArguments(call.arguments),
    mode: 'approval',
  };
  if (tool?.server !== undefined) interrupt.server = tool.server;
  if (tool?.annotations !== undefined) interrupt.annotations = tool.annotations;
  if (message !== undefined) interrupt.message = message;
  if (call.requestedBy !== undefined) interrupt.requestedBy = call.requestedBy;
  return interrupt;
}

/** Runs a hook; a throw becomes `hook_failed`. */
export async function runHook<T>(
  name: string,
  invoke: () => T | Promise<T>,
): Promise<Awaited<T> | undefined> {
  try {
    return (await invoke()) ?? undefined;
  } catch (error) {
    throw new SwitchboardError('hook_failed', `The ${name} hook failed: ${messageOf(error)}`, {
      cause: error,
    });
  }
}
