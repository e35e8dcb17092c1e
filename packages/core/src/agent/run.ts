import { SwitchboardError, isSwitchboardError } from '../errors/switchboard-error.ts';
import type {
  HistoryStore,
  PendingCall,
  RunRecord,
  RunState,
  RunStatus,
} from '../history/history-store.ts';
import { linkSignals, whenAborted } from '../internal/linked-signal.ts';
import { ReplayChannel } from '../internal/replay-channel.ts';
import {
  addUsage,
  type FunctionCallItem,
  type FunctionCallOutputItem,
  type Item,
  type MessageItem,
  type ToolOutput,
  type Usage,
} from '../items.ts';
import type { ModelRequest } from '../model/model.ts';
import type { Tool, ToolInterruptResult, ToolResume } from '../tools/tool-types.ts';
import type { AgentOptions } from './agent.ts';
import { CallTask, parseArguments, whenQuiet, type ApprovalHold } from './call-task.ts';
import type { Chunk, ChunkPayload } from './chunks.ts';
import { executeToolCall } from './execute-tool-call.ts';
import type { HookScope } from './hooks.ts';
import type { Interrupt, Resolution } from './interrupt.ts';
import { validateResolution } from './validate-resolution.ts';
import type { RunHandle, RunOutcome, RunResult } from './run-result.ts';
import { Toolset } from './toolset.ts';

const DEFAULT_MAX_TURNS = 50;

/** Calls held in memory between a pause and its resume (live 2025-era elicitations). */
export type LiveCalls = Map<string, CallTask>;

/** Everything one run needs. */
export interface RunSetup {
  agent: Readonly<AgentOptions>;
  history: HistoryStore;
  threadId: string;
  /** New user messages: a new run. */
  messages?: MessageItem[];
  /** Answers to a paused run's interrupts: resume it. */
  resolutions?: Resolution[];
  runContext: unknown;
  signal: AbortSignal | undefined;
  /** The agent's live calls of this thread, shared across runs of one Agent instance. */
  liveCalls: LiveCalls;
}

/** The handle's mutable run id: known at once for a new run, after loading for a resume. */
interface RunIdentity {
  runId: string;
}

/** Starts the loop in the background and returns its handle (see `Agent.execute`). */
export function startRun(setup: RunSetup): RunHandle {
  const identity: RunIdentity = {
    runId: setup.resolutions === undefined ? crypto.randomUUID() : '',
  };
  const channel = new ReplayChannel<Chunk>();
  // Runs sharing one caller signal add one listener to it in all, removed with the last run.
  const link = linkSignals(setup.signal);

  const run = new Run(setup, identity, channel, link.signal);
  const resultPromise = run.execute().finally(() => {
    link.dispose();
    channel.close();
  });

  return {
    get runId() {
      return identity.runId;
    },
    threadId: setup.threadId,
    chunks: channel,
    result: () => resultPromise,
    stop: () => link.abort(new SwitchboardError('aborted', 'The run was stopped.')),
  };
}

/** One run (or the resumed part of a paused run): the loop of model calls and tool calls. */
class Run {
  readonly #setup: RunSetup;
  readonly #identity: RunIdentity;
  readonly #channel: ReplayChannel<Chunk>;
  readonly #signal: AbortSignal;
  #sequence = 0;
  #createdAt = Date.now();
  /** Items of the thread before this run. */
  #previous: Item[] = [];
  /** Items this run added (its row). */
  #output: Item[] = [];
  #usage: Usage = { inputTokens: 0, outputTokens: 0 };
  #activated: string[] = [];
  #pending: PendingCall[] = [];
  #toolset: Toolset | undefined;
  /** The first `beforeToolCall` / `afterToolCall` failure of this run. */
  #hookFailure: SwitchboardError | undefined;
  /** Calls whose `tool.result` this run emitted. */
  readonly #reported = new Set<string>();

  constructor(
    setup: RunSetup,
    identity: RunIdentity,
    channel: ReplayChannel<Chunk>,
    signal: AbortSignal,
  ) {
    this.#setup = setup;
    this.#identity = identity;
    this.#channel = channel;
    this.#signal = signal;
  }

  get #scope(): HookScope {
    return {
      runId: this.#identity.runId,
      threadId: this.#setup.threadId,
      runContext: this.#setup.runContext,
    };
  }

  async execute(): Promise<RunResult> {
    let tasks: CallTask[] | undefined;
    try {
      const runs = await this.#setup.history
        .loadRuns(this.#setup.threadId, { signal: this.#signal })
        .catch((error: unknown) => {
          throw this.#signal.aborted ? error : asHistoryError(error, 'load the thread');
        });
      const last = runs.at(-1);
      if (this.#setup.resolutions !== undefined) {
        tasks = await this.#prepareResume(runs, this.#setup.resolutions);
        if (tasks === undefined) {
          await this.#keepNumbering();
          return this.#result('paused', this.#invalidResolution);
        }
      } else {
        if (last?.status === 'paused') runs[runs.length - 1] = await this.#abandonPaused(last);
        this.#previous = runs.flatMap((run) => run.items);
        this.#activated = last?.state?.activatedTools ?? [];
        this.#output = [...(this.#setup.messages ?? [])];
        this.#emitStarted();
        await this.#save('running');
      }
    } catch (error) {
      if (this.#identity.runId === '') this.#identity.runId = crypto.randomUUID();
      this.#emitStarted();
      if (this.#setup.resolutions !== undefined && !this.#claimed) {
        return await this.#refuseResume(asRunError(error));
      }
      if (this.#signal.aborted) return await this.#finish('cancelled');
      return await this.#finish('failed', asRunError(error));
    }
    try {
      this.#toolset = new Toolset(await this.#collectTools(), this.#activated);
      // Only now: an approved call looks its tool up in the toolset the moment it starts.
      if (tasks !== undefined) this.#deliver(tasks, this.#setup.resolutions ?? []);
      return await this.#loop(tasks);
    } catch (error) {
      if (this.#signal.aborted) return await this.#finish('cancelled');
      return await this.#finish('failed', asRunError(error));
    }
  }

  #invalidResolution: SwitchboardError | undefined;
  /** The paused run a resume loaded, once its state was found. */
  #paused: RunRecord | undefined;
  /** True once a resume started writing its claim: from then on a failure ends the run. */
  #claimed = false;
  #started = false;

  /**
   * A resume refused before it claimed anything (`not_paused`, `unknown_call_id`, an unreadable
   * thread): `run.failed`, but the thread is left as it was, so the paused run stays resumable
   * and no failed row appears.
   */
  async #refuseResume(error: SwitchboardError): Promise<RunResult> {
    this.#emit({ type: 'run.failed', error });
    await this.#keepNumbering();
    return {
      runId: this.#identity.runId,
      threadId: this.#setup.threadId,
      status: 'failed',
      output: [],
      interrupts: [],
      usage: { inputTokens: 0, outputTokens: 0 },
      error,
    };
  }

  /**
   * A refused resume emitted chunks under the paused run's id: records their last sequence in
   * the paused row so that the next resume does not number its chunks the same. Writes only when
   * the row is unchanged since it was loaded (it never undoes another client's claim).
   */
  async #keepNumbering(): Promise<void> {
    const paused = this.#paused;
    if (paused === undefined) return;
    try {
      const runs = await this.#setup.history.loadRuns(this.#setup.threadId, {
        signal: this.#signal,
      });
      const current = runs.find((run) => run.runId === paused.runId);
      if (current?.status !== 'paused' || current.updatedAt !== paused.updatedAt) return;
      if (current.lastSequence !== paused.lastSequence) return;
      await this.#setup.history.saveRun(
        { ...paused, lastSequence: this.#sequence - 1 },
        { signal: this.#signal },
      );
    } catch {
      // Best effort: only the numbering of a later resume's chunks is at stake.
    }
  }

  /**
   * Loads the paused run, checks the resolutions, claims the resolved calls (saved before any
   * tool runs, so an approved call runs once even if resume is called twice) and returns the
   * tasks of the paused turn, still waiting (see {@link #deliver}); `undefined` when an answer
   * is invalid (the run stays paused).
   */
  async #prepareResume(
    runs: RunRecord[],
    resolutions: Resolution[],
  ): Promise<CallTask[] | undefined> {
    const paused = runs.at(-1);
    if (paused === undefined || paused.status !== 'paused' || paused.state === undefined) {
      throw new SwitchboardError(
        'not_paused',
        `Thread ${this.#setup.threadId} has no paused run to resume.`,
      );
    }
    this.#paused = paused;
    this.#identity.runId = paused.runId;
    this.#sequence = (paused.lastSequence ?? -1) + 1;
    this.#createdAt = paused.createdAt;
    this.#previous = runs.slice(0, -1).flatMap((run) => run.items);
    this.#output = [...paused.items];
    this.#usage = paused.usage ?? this.#usage;
    this.#activated = paused.state.activatedTools ?? [];
    this.#pending = paused.state.pending;
    const byCall = new Map(this.#pending.map((pending) => [pending.call.callId, pending]));
    const seen = new Set<string>();
    for (const resolution of resolutions) {
      const pending = byCall.get(resolution.callId);
      if (pending === undefined || seen.has(resolution.callId)) {
        throw new SwitchboardError(
          'unknown_call_id',
          `No interrupt of call "${resolution.callId}" is waiting in thread ${this.#setup.threadId}` +
            ` (waiting: ${[...byCall.keys()].join(', ') || 'none'}).`,
          { details: { callId: resolution.callId } },
        );
      }
      seen.add(resolution.callId);
      const invalid = validateResolution(pending.interrupt, resolution);
      if (invalid !== undefined) {
        this.#invalidResolution = invalid;
        this.#emitStarted();
        this.#emit({ type: 'run.paused', interrupts: this.#pending.map((p) => p.interrupt) });
        return undefined;
      }
    }
    this.#emitStarted();
    // Claim: the resolved calls leave the stored pending list before anything runs.
    this.#pending = this.#pending.filter((pending) => !seen.has(pending.call.callId));
    this.#claimed = true;
    await this.#save('running');
    return paused.state.pending.map((pending) => {
      const task = this.#setup.liveCalls.get(pending.call.callId) ?? this.#newTask(pending.call);
      if (task.phase.phase !== 'waiting') task.restore(pending.interrupt, pending.resumeState);
      return task;
    });
  }

  /** Hands each resolution to its task: runs, refuses or re-runs the call, or wakes a live wait. */
  #deliver(tasks: readonly CallTask[], resolutions: readonly Resolution[]): void {
    for (const resolution of resolutions) {
      const task = tasks.find((candidate) => candidate.call.callId === resolution.callId);
      this.#setup.liveCalls.delete(resolution.callId);
      task?.resolve(resolution);
    }
  }

  /** A new message on a paused thread: its pending calls are closed as unanswered. */
  async #abandonPaused(paused: RunRecord): Promise<RunRecord> {
    for (const pending of paused.state?.pending ?? []) {
      this.#setup.liveCalls
        .get(pending.call.callId)
        ?.abandon(new SwitchboardError('aborted', 'The user moved on without answering.'));
      this.#setup.liveCalls.delete(pending.call.callId);
    }
    const items = [...paused.items];
    for (const pending of paused.state?.pending ?? []) {
      const message = 'The user did not answer and moved on; this tool call was not completed.';
      items.push({
        type: 'function_call_output',
        callId: pending.call.callId,
        output: { text: message, isError: true, error: { code: 'unanswered', message } },
      });
    }
    const closed: RunRecord = {
      ...paused,
      status: 'cancelled',
      items,
      state: { version: 1, pending: [], activatedTools: paused.state?.activatedTools ?? [] },
      updatedAt: Date.now(),
    };
    await this.#setup.history.saveRun(closed, { signal: this.#signal });
    return closed;
  }

  async #loop(resumedTasks: CallTask[] | undefined): Promise<RunResult> {
    const agent = this.#setup.agent;
    const toolset = this.#toolset as Toolset;
    const maxTurns = agent.maxTurns ?? DEFAULT_MAX_TURNS;
    let tasks = resumedTasks;
    for (let turn = 1; ; turn++) {
      if (tasks === undefined) {
        if (turn > maxTurns) {
          return await this.#finish(
            'failed',
            new SwitchboardError(
              'max_turns_exceeded',
              `The run reached maxTurns (${maxTurns}) model calls without a final answer.`,
              { details: { maxTurns } },
            ),
          );
        }
        const calls = await this.#callModel(turn, toolset);
        if (calls.length === 0) return await this.#finish('completed');
        this.#output.push(...calls);
        await this.#save('running');
        tasks = await Promise.all(calls.map((call) => this.#startCall(call)));
      }
      const stopping = whenAborted(this.#signal);
      await Promise.race([whenQuiet(tasks), stopping.promise]).finally(stopping.dispose);
      const settled: FunctionCallOutputItem[] = [];
      const waiting: PendingCall[] = [];
      const stopped = this.#signal.aborted;
      for (const task of tasks) {
        const phase = task.phase;
        if (phase.phase === 'settled') {
          // Refused approvals and live calls answered after a resume settle outside this run's
          // #settleOutput: report them here so every settled call gets its `tool.result`.
          if (!stopped && !this.#reported.has(task.call.callId)) {
            this.#reportResult(task.call, phase.output);
          }
          settled.push({
            type: 'function_call_output',
            callId: task.call.callId,
            output: phase.output,
          });
        } else if (stopped) {
          // A call that settled keeps its real output; one still open gets a synthetic one, in
          // call order.
          settled.push(unfinishedCallOutput(task.call.callId, 'cancelled'));
        } else if (phase.phase === 'waiting') {
          const pending: PendingCall = { call: task.call, interrupt: phase.interrupt };
          if (phase.resumeState !== undefined) pending.resumeState = phase.resumeState;
          waiting.push(pending);
          if (phase.live) this.#setup.liveCalls.set(task.call.callId, task);
        }
      }
      this.#output.push(...settled);
      throwIfAborted(this.#signal);
      if (this.#hookFailure !== undefined) {
        // A tool hook threw: the run fails like for a model hook, once every call is quiet.
        this.#pending = waiting;
        throw this.#hookFailure;
      }
      this.#activated = [...toolset.activated];
      if (waiting.length > 0) {
        this.#pending = waiting;
        return await this.#finish('paused');
      }
      await this.#save('running');
      tasks = undefined;
    }
  }

  /** One model call; streams text and reasoning, returns the tool calls it asked for. */
  async #callModel(turn: number, toolset: Toolset): Promise<FunctionCallItem[]> {
    const agent = this.#setup.agent;
    const sections = [
      agent.instructions,
      agent.deferredToolsInstructions === false ? undefined : toolset.instructionsSection(),
    ].filter((section): section is string => section !== undefined && section !== '');
    let request: ModelRequest = {
      ...(sections.length === 0 ? {} : { instructions: sections.join('\n\n') }),
      items: [...this.#previous, ...this.#output],
      tools: toolset.modelTools(),
    };
    const changed = await this.#hook('beforeModelCall', () =>
      agent.hooks?.beforeModelCall?.({ ...this.#scope, turn, request }),
    );
    if (changed !== undefined && changed !== null) request = changed;

    const calls: FunctionCallItem[] = [];
    let text = '';
    let reasoning = '';
    let usage: Usage | undefined;
    try {
      for await (const event of agent.model.stream(request, { signal: this.#signal })) {
        if (event.type === 'text.delta') {
          text += event.delta;
          this.#emit({ type: 'text.delta', delta: event.delta });
        } else if (event.type === 'reasoning.delta') {
          reasoning += event.delta;
          this.#emit({ type: 'reasoning.delta', delta: event.delta });
        } else if (event.type === 'tool.call') {
          calls.push({
            type: 'function_call',
            callId: event.callId,
            name: event.name,
            arguments: event.arguments,
          });
        } else {
          usage = event.usage;
          this.#usage = addUsage(this.#usage, event.usage);
        }
      }
    } finally {
      // What the user already saw stays in history, even when the stream broke off.
      if (reasoning !== '') this.#output.push({ type: 'reasoning', text: reasoning });
      if (text !== '') this.#output.push({ type: 'message', role: 'assistant', content: text });
    }
    if (text !== '') this.#emit({ type: 'text.done', text });
    throwIfAborted(this.#signal);
    await this.#hook('afterModelCall', () =>
      agent.hooks?.afterModelCall?.({
        ...this.#scope,
        turn,
        text,
        calls,
        ...(usage === undefined ? {} : { usage }),
      }),
    );
    return calls;
  }

  /** Emits `tool.call` and starts the call, or holds it for approval. */
  async #startCall(call: FunctionCallItem): Promise<CallTask> {
    const tool = this.#toolset?.get(call.name);
    this.#emit({
      type: 'tool.call',
      callId: call.callId,
      toolName: call.name,
      ...(tool?.server === undefined ? {} : { server: tool.server }),
      arguments: parseArguments(call.arguments),
    });
    const task = this.#newTask(call);
    if (tool !== undefined && (await this.#needsApproval(tool, call))) {
      task.holdForApproval(this.#approvalInterrupt(call, tool));
    } else {
      task.run();
    }
    return task;
  }

  async #needsApproval(tool: Tool, call: FunctionCallItem): Promise<boolean> {
    const args = parseArguments(call.arguments);
    const policy = this.#setup.agent.approvalPolicy;
    if (
      policy !== undefined &&
      (await policy(args, tool.annotations, this.#setup.runContext, tool))
    )
      return true;
    const own = tool.needsApproval;
    if (typeof own === 'function') return await own(args, tool.annotations, this.#setup.runContext);
    return own === true;
  }

  #approvalInterrupt(call: FunctionCallItem, tool: Tool | undefined, message?: string): Interrupt {
    const interrupt: Interrupt = {
      callId: call.callId,
      toolName: call.name,
      arguments: parseArguments(call.arguments),
      mode: 'approval',
    };
    if (tool?.server !== undefined) interrupt.server = tool.server;
    if (tool?.annotations !== undefined) interrupt.annotations = tool.annotations;
    if (message !== undefined) interrupt.message = message;
    return interrupt;
  }

  /** A task whose runs go through the hooks, the tool and the `tool.result` chunk. */
  #newTask(call: FunctionCallItem): CallTask {
    return new CallTask(
      call,
      (task, resume, approved) =>
        this.#startTool(call, task, resume, approved).catch((error: unknown) => {
          if (isSwitchboardError(error, 'hook_failed')) this.#hookFailure ??= error;
          throw error;
        }),
      () => this.#toolset?.get(call.name)?.server,
    );
  }

  /** One start of a call's tool (see {@link #newTask}). */
  async #startTool(
    call: FunctionCallItem,
    task: CallTask,
    resume: ToolResume | undefined,
    approved: boolean,
  ): Promise<ToolOutput | ToolInterruptResult | ApprovalHold> {
    const agent = this.#setup.agent;
    const tool = this.#toolset?.get(call.name);
    if (resume === undefined) {
      const decision = await this.#hook('beforeToolCall', () =>
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
          interrupt: this.#approvalInterrupt(call, tool, decision.message),
        } as const;
      }
    }
    const result = await executeToolCall(call, tool, {
      signal: this.#signal,
      threadId: this.#setup.threadId,
      runId: this.#identity.runId,
      runContext: this.#setup.runContext,
      resume,
      requestInput: (request, resumeState) => task.requestInput(request, resumeState),
      onProgress: (progressCall, progress) => {
        this.#emit({
          type: 'tool.progress',
          callId: progressCall.callId,
          toolName: progressCall.name,
          ...progress,
        });
      },
    });
    if ('kind' in result) return result;
    return await this.#settleOutput(call, tool, result);
  }

  /** Applies `afterToolCall` and emits `tool.result` (unless the run was stopped). */
  async #settleOutput(
    call: FunctionCallItem,
    tool: Tool | undefined,
    output: ToolOutput,
  ): Promise<ToolOutput> {
    const replaced = await this.#hook('afterToolCall', () =>
      this.#setup.agent.hooks?.afterToolCall?.({ ...this.#scope, call, tool, output }),
    );
    const final = replaced ?? output;
    if (!this.#signal.aborted) this.#reportResult(call, final);
    return final;
  }

  #reportResult(call: FunctionCallItem, output: ToolOutput): void {
    this.#reported.add(call.callId);
    this.#emit({ type: 'tool.result', callId: call.callId, toolName: call.name, output });
  }

  async #collectTools(): Promise<Tool[]> {
    const agent = this.#setup.agent;
    const lists = await Promise.all(
      (agent.mcpServers ?? []).map(async (server) => {
        try {
          return await server.listTools({
            signal: this.#signal,
            runContext: this.#setup.runContext,
          });
        } catch (error) {
          // A server waiting for the user to sign in does not fail the run: it goes on without
          // that server's tools, and the UI offers "Connect" (the chunk, and the server status).
          if (!isSwitchboardError(error, 'needs_auth')) throw error;
          this.#emit({ type: 'server.needs_auth', server: server.name, message: error.message });
          return [];
        }
      }),
    );
    return [...(agent.tools ?? []), ...lists.flat()];
  }

  /** Runs a hook; a throw becomes `hook_failed`. */
  async #hook<T>(name: string, invoke: () => T | Promise<T>): Promise<Awaited<T> | undefined> {
    try {
      return (await invoke()) ?? undefined;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new SwitchboardError('hook_failed', `The ${name} hook failed: ${message}`, {
        cause: error,
      });
    }
  }

  #record(
    status: RunStatus,
    error?: SwitchboardError,
    lastSequence = this.#sequence - 1,
  ): RunRecord {
    const state: RunState = { version: 1, pending: this.#pending, activatedTools: this.#activated };
    const row: RunRecord = {
      runId: this.#identity.runId,
      threadId: this.#setup.threadId,
      status,
      items: this.#output,
      usage: this.#usage,
      state,
      lastSequence,
      createdAt: this.#createdAt,
      updatedAt: Date.now(),
    };
    if (error !== undefined) row.error = { code: error.code, message: error.message };
    return row;
  }

  async #save(status: RunStatus): Promise<void> {
    try {
      await this.#setup.history.saveRun(this.#record(status), { signal: this.#signal });
    } catch (error) {
      throw this.#signal.aborted ? error : asHistoryError(error);
    }
  }

  async #finish(status: RunOutcome, error?: SwitchboardError): Promise<RunResult> {
    if (status !== 'paused') {
      this.#closePendingCalls(status);
      for (const pending of this.#pending) {
        this.#setup.liveCalls
          .get(pending.call.callId)
          ?.abandon(error ?? new SwitchboardError('aborted', 'The run ended.'));
        this.#setup.liveCalls.delete(pending.call.callId);
      }
      this.#pending = [];
    }
    const terminal = this.#terminalChunk(status, error);
    try {
      // The row records the terminal chunk's sequence, so a resumed run continues numbering.
      await this.#setup.history.saveRun(this.#record(status, error, this.#sequence));
    } catch (saveError) {
      if (status !== 'failed') return await this.#finish('failed', asHistoryError(saveError));
    }
    this.#emit(terminal);
    return this.#result(status, error);
  }

  #terminalChunk(status: RunOutcome, error?: SwitchboardError): ChunkPayload {
    if (status === 'completed')
      return { type: 'run.completed', usage: this.#usage, output: [...this.#output] };
    if (status === 'cancelled') return { type: 'run.cancelled' };
    if (status === 'paused')
      return { type: 'run.paused', interrupts: this.#pending.map((p) => p.interrupt) };
    return {
      type: 'run.failed',
      error: error ?? new SwitchboardError('model_error', 'The run failed.'),
    };
  }

  #result(status: RunOutcome, error?: SwitchboardError): RunResult {
    const result: RunResult = {
      runId: this.#identity.runId,
      threadId: this.#setup.threadId,
      status,
      output: [...this.#output],
      interrupts: status === 'paused' ? this.#pending.map((pending) => pending.interrupt) : [],
      usage: this.#usage,
    };
    if (error !== undefined) result.error = error;
    return result;
  }

  /**
   * Keeps the invariant "every function_call has exactly one function_call_output": calls left
   * without an output when a run stops or fails get a synthetic error output.
   */
  #closePendingCalls(status: RunOutcome): void {
    const answered = new Set(
      this.#output.flatMap((item) => (item.type === 'function_call_output' ? [item.callId] : [])),
    );
    for (const item of [...this.#output]) {
      if (item.type !== 'function_call' || answered.has(item.callId)) continue;
      this.#output.push(unfinishedCallOutput(item.callId, status));
    }
  }

  /** Emits `run.started` once. */
  #emitStarted(): void {
    if (this.#started) return;
    this.#started = true;
    this.#emit({ type: 'run.started', threadId: this.#setup.threadId });
  }

  #emit(payload: ChunkPayload): void {
    this.#channel.push({
      ...payload,
      runId: this.#identity.runId,
      sequence: this.#sequence++,
    } as Chunk);
  }
}

/** The synthetic error output of a call the run ended (`status`) before it finished. */
function unfinishedCallOutput(callId: string, status: RunOutcome): FunctionCallOutputItem {
  const message =
    status === 'cancelled'
      ? 'The run was stopped before this tool call finished.'
      : 'The run failed before this tool call finished.';
  return {
    type: 'function_call_output',
    callId,
    output: { text: message, isError: true, error: { code: status, message } },
  };
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new SwitchboardError('aborted', 'The run was stopped.');
}

function asRunError(error: unknown): SwitchboardError {
  if (isSwitchboardError(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new SwitchboardError('model_error', `The run failed: ${message}`, { cause: error });
}

function asHistoryError(error: unknown, what = 'save the run'): SwitchboardError {
  if (isSwitchboardError(error, 'history_error')) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new SwitchboardError('history_error', `Could not ${what}: ${message}`, {
    cause: error,
  });
}
