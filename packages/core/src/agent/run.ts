import { messageOf } from '../errors/message-of.ts';
import { SwitchboardError, isSwitchboardError } from '../errors/switchboard-error.ts';
import type {
  HistoryStore,
  ParentCallRef,
  PendingCall,
  RunRecord,
} from '../history/history-store.ts';
import { linkSignals, whenAborted } from '../internal/linked-signal.ts';
import { ReplayChannel } from '../internal/replay-channel.ts';
import type {
  FunctionCallItem,
  FunctionCallOutputItem,
  MessageItem,
  Usage,
} from '../vocabulary/items.ts';
import type { Model, ModelRequest } from '../model/model.ts';
import type { AgentOptions } from './agent-options.ts';
import {
  refuseBusyThread,
  resumedAppCall,
  startAppCall,
  type AppCall,
  type AppCallRequest,
} from './app-tool-call.ts';
import { storeAttachments, type PendingAttachment } from './attachment-input.ts';
import { whenQuiet, type CallTask } from './call-task.ts';
import type { Chunk } from './chunks.ts';
import type { HookScope } from './hooks.ts';
import { callModelWithRetries, modelName, type AttemptOutput } from './model-retries.ts';
import type { ResolvedModelRetryPolicy } from './model-retry-policy.ts';
import { modelItems } from './model-items.ts';
import type { Resolution } from '../vocabulary/interrupts.ts';
import { loadRecovered } from './recover-run.ts';
import type { ThreadCache } from './thread-cache.ts';
import { branchPointOf } from './branch-point.ts';
import { abandonNestedPauses } from './abandon-pause.ts';
import {
  abandonPausedRun,
  claimPausedRun,
  deliverResolutions,
  type LiveCalls,
} from './resume-run.ts';
import { DEFAULT_LEASE_MS, RunJournal, unfinishedCallOutput } from './run-journal.ts';
import type { RunHandle, RunResult } from './run-result.ts';
import { ToolCalls, runHook } from './tool-calls.ts';
import { RunToolset } from './run-toolset.ts';
import { Toolset } from './toolset.ts';
import { replayModelStep, type ModelStepRecord } from './model-step.ts';
import { fromStepFailure, inProcessSteps, runStep, toStepFailure } from './step-runner.ts';
import type { StepRunner } from './step-runner.ts';

const DEFAULT_MAX_TURNS = 50;

/** Everything one run needs. */
export interface RunSetup {
  agent: Readonly<AgentOptions>;
  history: HistoryStore;
  threadId: string;
  /** New user messages: a new run. */
  messages?: MessageItem[];
  /** Checked files of `messages`, stored (and added to them as parts) before the run starts. */
  attachments?: PendingAttachment[];
  /** Answers to a paused run's interrupts: resume it. */
  resolutions?: Resolution[];
  /** The run a new run follows (see `ExecuteInput.parentRunId`); absent: the selected branch. */
  parentRunId?: string | null;
  runContext: unknown;
  signal: AbortSignal | undefined;
  /** The agent's live calls of this thread, shared across runs of one Agent instance. */
  liveCalls: LiveCalls;
  /** The lease owner id of the agent (one per `Agent` instance). */
  owner: string;
  /** The agent's rows of its threads (read through it: O(changes), see `ThreadCache`). */
  threads: ThreadCache;
  /** The run's retry policy (the agent's, with the run's fields over it). */
  modelRetry: ResolvedModelRetryPolicy;
  /** The models to fall back to after `agent.model`, in order. */
  fallbackModels: readonly Model[];
  /** An MCP Apps view's call (`Agent.callToolFromApp`): a run of that call alone, no model. */
  appCall?: AppCallRequest;
  /** The parent run's call when this run is a sub-agent's (see `RunRecord.parentCall`). */
  parentCall?: ParentCallRef | undefined;
  /** How the run's steps run (default {@link inProcessSteps}); see `ExecuteInput.steps`. */
  steps?: StepRunner;
  /** The new run's id (default random); see `ExecuteInput.runId`. */
  runId?: string;
}

/**
 * `runs` with its last row (the pause a resume continues) replaced by a copy: the resumed row is
 * the run's own from then on, never the thread cache's shared row (see `ThreadCache`).
 */
function ownLast(runs: RunRecord[]): RunRecord[] {
  const last = runs.at(-1);
  if (last !== undefined) runs[runs.length - 1] = structuredClone(last);
  return runs;
}

/** Starts the loop in the background and returns its handle (see `Agent.execute`). */
export function startRun(setup: RunSetup): RunHandle {
  const channel = new ReplayChannel<Chunk>();
  // Runs sharing one caller signal add one listener to it in all, removed with the last run.
  const link = linkSignals(setup.signal);

  const journal = new RunJournal({
    history: setup.history,
    threadId: setup.threadId,
    channel,
    owner: setup.owner,
    leaseMs: setup.agent.leaseMs ?? DEFAULT_LEASE_MS,
    parentCall: setup.parentCall,
    durable: setup.steps?.durable === true,
    ...(setup.steps?.live === undefined ? {} : { live: () => setup.steps?.live?.() !== false }),
  });
  if (setup.resolutions === undefined) journal.runId = setup.runId ?? crypto.randomUUID();
  const run = new Run(setup, journal, link.signal);
  const resultPromise = run.execute().finally(() => {
    link.dispose();
    channel.close();
  });

  return {
    get runId() {
      return journal.runId;
    },
    threadId: setup.threadId,
    chunks: channel,
    result: () => resultPromise,
    stop: () => link.abort(new SwitchboardError('aborted', 'The run was stopped.')),
  };
}

/**
 * One run (or the resumed part of a paused run): the loop of model calls and tool calls, over a
 * {@link RunJournal} that records it. Resuming is in `resume-run.ts`, tool calls in
 * `tool-calls.ts`, crash recovery in `recover-run.ts`.
 */
class Run {
  readonly #setup: RunSetup;
  readonly #journal: RunJournal;
  readonly #signal: AbortSignal;
  readonly #toolCalls: ToolCalls;
  /** `agent.model`, then the fallback models. */
  readonly #models: readonly Model[];
  /** The model serving this run: a fallback that answered stays for the run's later turns. */
  #modelIndex = 0;
  /** Set for a run of one call an MCP Apps view made (new or resumed): it never calls a model. */
  #appCall: AppCall | undefined;
  readonly #steps: StepRunner;

  constructor(setup: RunSetup, journal: RunJournal, signal: AbortSignal) {
    this.#setup = setup;
    this.#steps = setup.steps ?? inProcessSteps;
    this.#journal = journal;
    this.#signal = signal;
    this.#models = [setup.agent.model, ...setup.fallbackModels];
    this.#toolCalls = new ToolCalls({
      agent: setup.agent,
      journal,
      runContext: setup.runContext,
      signal,
      steps: this.#steps,
    });
  }

  get #scope(): HookScope {
    return {
      runId: this.#journal.runId,
      threadId: this.#setup.threadId,
      runContext: this.#setup.runContext,
    };
  }

  async execute(): Promise<RunResult> {
    const journal = this.#journal;
    const resolutions = this.#setup.resolutions;
    let tasks: CallTask[] | undefined;
    /** The paused row a refused resume emitted chunks for (see `RunJournal.keepNumbering`). */
    let paused: RunRecord | undefined;
    try {
      const runs = await this.#loadThread();
      this.#releaseForeignLiveCalls(runs);
      if (resolutions !== undefined) {
        paused = ownLast(runs).at(-1);
        const start = await claimPausedRun(
          journal,
          runs,
          resolutions,
          this.#setup.liveCalls,
          this.#toolCalls,
          async () => ownLast(await this.#loadThread()),
        );
        if (start.type === 'invalid') {
          journal.emitStarted();
          journal.emit({
            type: 'run.paused',
            interrupts: journal.pending.map((pending) => pending.interrupt),
          });
          await journal.keepNumbering(start.paused);
          return journal.result('paused', start.error);
        }
        tasks = start.tasks;
        this.#appCall = await resumedAppCall(paused, this.#setup.agent, this.#signal);
      } else {
        // Checked before a pause is abandoned: a bad branch point loses nothing.
        const parent = await branchPointOf(this.#setup, runs, this.#signal, (runId) => {
          // The cache's index of the rows just read; a thread it dropped meanwhile is looked through.
          const held = this.#setup.threads.has(this.#setup.threadId, runId);
          return held ?? runs.some((run) => run.runId === runId);
        });
        const last = runs.at(-1);
        if (this.#setup.appCall !== undefined) {
          refuseBusyThread(this.#setup.threadId, last);
          this.#appCall = await startAppCall(this.#setup.appCall, this.#setup.agent, this.#signal);
        }
        if (last?.status === 'paused') {
          runs[runs.length - 1] = await abandonPausedRun(journal, last, this.#setup.liveCalls);
          await abandonNestedPauses(last, this.#setup.agent.tools ?? []);
        } else if (last?.status === 'running') {
          throw new SwitchboardError(
            'run_in_progress',
            `Thread ${this.#setup.threadId} has a run in progress in another client ` +
              `(lease until ${new Date(last.lease?.expiresAt ?? 0).toISOString()}).`,
          );
        }
        // A pause closed just now is newer than the cache's row: the branch is read from `runs`.
        const branch =
          last?.status === 'paused'
            ? undefined
            : this.#setup.threads.branch(this.#setup.threadId, parent);
        journal.beginNew(runs, await this.#newMessages(), parent, branch);
        journal.emitStarted();
        await journal.claim();
      }
    } catch (error) {
      journal.ensureRunId();
      if (!journal.claimed) {
        // Nothing of this run was stored: the thread stays as it was (a pause stays answerable).
        if (this.#signal.aborted) return journal.endUnwritten('cancelled');
        const failure = asRunError(error);
        const result = journal.endUnwritten('failed', failure);
        if (paused?.status === 'paused' && !isSwitchboardError(failure, 'run_claimed')) {
          await journal.keepNumbering(paused);
        }
        return result;
      }
      if (this.#signal.aborted) return await journal.finish('cancelled');
      return await journal.finish('failed', asRunError(error));
    }
    try {
      // Stopped while claiming: end before any approved call starts, so what is stored (each
      // call "stopped before it finished") is what ran: nothing.
      if (this.#signal.aborted) return await this.#end('cancelled');
      const appCall = this.#appCall;
      if (appCall !== undefined) {
        // The view's tool alone (app-only tools are in no model toolset); one call, no model.
        const toolset = new Toolset(appCall.tool === undefined ? [] : [appCall.tool], []);
        this.#toolCalls.useToolset(toolset);
        if (tasks === undefined) {
          journal.append([appCall.item]);
          await journal.commit();
          tasks = [await this.#toolCalls.start(appCall.item)];
        } else {
          deliverResolutions(tasks, resolutions ?? [], this.#setup.liveCalls);
        }
        return await this.#loop({ current: () => Promise.resolve(toolset) }, tasks);
      }
      const tools = new RunToolset({
        agent: this.#setup.agent,
        runContext: this.#setup.runContext,
        signal: this.#signal,
        activated: journal.activated,
        steps: this.#steps,
        // A resumed run knew its paused calls' tools: one gone now was removed while it waited.
        known: (paused?.state?.pending ?? []).flatMap((entry) =>
          entry.interrupt.server === undefined
            ? []
            : [[entry.call.name, entry.interrupt.server] as const],
        ),
        onNeedsAuth: (server, message) =>
          journal.emit({ type: 'server.needs_auth', server, message }),
      });
      this.#toolCalls.useToolset(await tools.current());
      // Only now: an approved call looks its tool up in the toolset the moment it starts.
      if (tasks !== undefined) {
        deliverResolutions(tasks, resolutions ?? [], this.#setup.liveCalls);
      }
      return await this.#loop(tools, tasks);
    } catch (error) {
      if (this.#signal.aborted && !isSwitchboardError(error, 'run_claimed')) {
        return await this.#end('cancelled');
      }
      return await this.#end('failed', asRunError(error));
    }
  }

  /**
   * Calls this Agent holds open for a pause that is no longer waiting for them (another client
   * resumed or abandoned it) are abandoned: cancelled on the server, never answered here.
   */
  #releaseForeignLiveCalls(runs: readonly RunRecord[]): void {
    const last = runs.at(-1);
    const waiting = new Set(
      last?.status === 'paused'
        ? (last.state?.pending ?? []).map((entry) => entry.call.callId)
        : [],
    );
    for (const [callId, task] of this.#setup.liveCalls) {
      if (waiting.has(callId)) continue;
      task.abandon(new SwitchboardError('run_claimed', 'Another client continued this run.'));
      this.#setup.liveCalls.delete(callId);
    }
  }

  /** The thread's rows, stale `running` rows recovered first (see `recoverStaleRuns`). */
  async #loadThread(): Promise<RunRecord[]> {
    return await loadRecovered(this.#setup.threadId, {
      history: this.#setup.history,
      owner: this.#setup.owner,
      signal: this.#signal,
      read: (threadId, options) => this.#setup.threads.load(threadId, options),
      running: (threadId) => this.#setup.threads.running(threadId),
      write: (row, expectedVersion) => this.#journal.writeOther(row, expectedVersion),
    });
  }

  async #loop(
    tools: Pick<RunToolset, 'current'>,
    resumedTasks: CallTask[] | undefined,
  ): Promise<RunResult> {
    const journal = this.#journal;
    const maxTurns = this.#setup.agent.maxTurns ?? DEFAULT_MAX_TURNS;
    let tasks = resumedTasks;
    let toolset = await tools.current();
    for (let turn = 1; ; turn++) {
      if (tasks === undefined) {
        if (turn > maxTurns) {
          return await this.#end(
            'failed',
            new SwitchboardError(
              'max_turns_exceeded',
              `The run reached maxTurns (${maxTurns}) model calls without a final answer.`,
              { details: { maxTurns } },
            ),
          );
        }
        // A turn boundary: the servers' current lists (a tool added or removed since the last
        // model call, after `list_changed`); the same toolset when nothing changed.
        toolset = await tools.current();
        this.#toolCalls.useToolset(toolset);
        const calls = await this.#callModel(turn, toolset);
        if (calls.length === 0) return await this.#end('completed');
        journal.append(calls);
        await journal.commit();
        tasks = await Promise.all(calls.map((call) => this.#toolCalls.start(call)));
      }
      const stopStoring = storeEachSettled(journal, tasks);
      const stopping = whenAborted(this.#signal);
      await Promise.race([whenQuiet(tasks), stopping.promise]).finally(stopping.dispose);
      stopStoring();
      const settled: FunctionCallOutputItem[] = [];
      const waiting: PendingCall[] = [];
      const live: CallTask[] = [];
      const stopped = this.#signal.aborted;
      for (const task of tasks) {
        const phase = task.phase;
        if (phase.phase === 'settled') {
          if (!stopped) this.#toolCalls.reportSettled(task.call, phase.output);
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
          if (phase.live) live.push(task);
        }
      }
      journal.endTurn(settled);
      throwIfAborted(this.#signal);
      const hookFailure = this.#toolCalls.hookFailure;
      if (hookFailure !== undefined) {
        // A tool hook threw: the run fails like for a model hook, once every call is quiet.
        return await this.#end('failed', hookFailure, waiting);
      }
      journal.setActivated([...toolset.activated]);
      if (waiting.length > 0) {
        const result = await journal.finish('paused', undefined, waiting);
        for (const task of live) {
          if (result.status === 'paused') {
            // The pause owns its live calls now: stopping this (ended) run no longer touches
            // them; the resume that answers them adopts them.
            task.detach();
            this.#setup.liveCalls.set(task.call.callId, task);
          } else {
            task.abandon(result.error ?? new SwitchboardError('aborted', 'The run ended.'));
          }
        }
        return result;
      }
      if (this.#appCall !== undefined) return await this.#end('completed');
      await journal.commit();
      tasks = undefined;
    }
  }

  /**
   * Ends the run (not paused): live calls still waiting in `waiting` (and in the journal's
   * pending list) are abandoned, so their tools stop.
   */
  async #end(
    outcome: 'completed' | 'failed' | 'cancelled',
    error?: SwitchboardError,
    waiting: readonly PendingCall[] = [],
  ): Promise<RunResult> {
    for (const pending of [...waiting, ...this.#journal.pending]) {
      this.#setup.liveCalls
        .get(pending.call.callId)
        ?.abandon(error ?? new SwitchboardError('aborted', 'The run ended.'));
      this.#setup.liveCalls.delete(pending.call.callId);
    }
    return await this.#journal.finish(outcome, error);
  }

  /** Where the model adapters read attached files' bytes (`ModelRequest.readAttachment`). */
  #attachmentReader(): Pick<ModelRequest, 'readAttachment'> {
    const store = this.#setup.history.attachments;
    const threadId = this.#setup.threadId;
    return store === undefined
      ? {}
      : { readAttachment: (attachmentId, options) => store.get(threadId, attachmentId, options) };
  }

  /** The run's new messages, their attachments stored first (docs/conversations.md). */
  async #newMessages(): Promise<MessageItem[]> {
    const { messages = [], attachments = [], history, threadId } = this.#setup;
    if (attachments.length === 0 || history.attachments === undefined) return messages;
    return await storeAttachments(
      history.attachments,
      threadId,
      messages,
      attachments,
      this.#signal,
    );
  }

  /** One model call; streams text and reasoning, returns the tool calls it asked for. */
  async #callModel(turn: number, toolset: Toolset): Promise<FunctionCallItem[]> {
    const agent = this.#setup.agent;
    const journal = this.#journal;
    const sections = [
      agent.instructions,
      agent.deferredToolsInstructions === false ? undefined : toolset.instructionsSection(),
    ].filter((section): section is string => section !== undefined && section !== '');
    let request: ModelRequest = {
      ...(sections.length === 0 ? {} : { instructions: sections.join('\n\n') }),
      // The one copy of the branch a request costs: each request owns its array.
      items: modelItems(
        journal.previous.with(journal.output),
        journal.previousPlain ? journal.previous.length : 0,
      ),
      tools: toolset.modelTools(),
      ...this.#attachmentReader(),
    };
    const changed = await runHook('beforeModelCall', () =>
      agent.hooks?.beforeModelCall?.({ ...this.#scope, turn, request }),
    );
    if (changed !== undefined && changed !== null) request = changed;

    // One step (docs/architecture.md, "Steps"): a durable runner journals the answer, and a
    // replay applies what the step added to the journal instead of calling the model again.
    const record: ModelStepRecord = { items: [], usage: [], failures: [] };
    let thrown: unknown;
    const step = await runStep(this.#steps, `model:${turn}`, async () => {
      const before = journal.output.length;
      try {
        const { value, modelIndex } = await this.#callModelWithRetries(request, record);
        record.answer = { ...value, modelIndex };
      } catch (error) {
        thrown = error;
        record.failure = toStepFailure(error);
      }
      record.items = journal.output.slice(before);
      return record;
    });
    if (step.replayed) replayModelStep(journal, step.value);
    if (step.value.failure !== undefined) throw thrown ?? fromStepFailure(step.value.failure);
    const { modelIndex, ...answer } = step.value.answer as NonNullable<ModelStepRecord['answer']>;
    this.#modelIndex = modelIndex;
    const { calls, text, usage } = answer;
    if (text !== '') journal.emit({ type: 'text.done', text });
    throwIfAborted(this.#signal);
    await runHook('afterModelCall', () =>
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

  /** The model call of {@link #callModel} with its retries and fallbacks, noted in `record`. */
  #callModelWithRetries(request: ModelRequest, record: ModelStepRecord) {
    const journal = this.#journal;
    // Tools of a turn start only after its model call ended, so no retry here ever follows a
    // tool that ran (docs/architecture.md, "Retries and fallbacks").
    return callModelWithRetries({
      models: this.#models,
      start: this.#modelIndex,
      policy: this.#setup.modelRetry,
      signal: this.#signal,
      attempt: (model, output) => this.#streamAnswer(model, request, output, record.usage),
      onFailure: (note) => {
        const { maxAttempts, ...failure } = note;
        journal.noteModelFailure(failure);
        record.failures.push(failure);
        const facts = {
          reason: note.message,
          code: note.code,
          ...(note.status === undefined ? {} : { status: note.status }),
        };
        if (note.then.action === 'retry') {
          journal.emit({
            type: 'model.retry',
            model: note.model,
            attempt: note.attempt + 1,
            maxAttempts,
            delayMs: note.then.delayMs,
            ...facts,
          });
        } else {
          journal.emit({ type: 'model.fallback', from: note.model, to: note.then.to, ...facts });
        }
      },
    });
  }

  /**
   * One attempt of a model call: streams text and reasoning as chunks and returns the answer.
   * `output.started` is set at the first thing the model produced; after that a failure is
   * never retried (what the user saw stays in history, as for any broken stream).
   */
  async #streamAnswer(
    model: Model,
    request: ModelRequest,
    output: AttemptOutput,
    usages: Usage[],
  ): Promise<{ calls: FunctionCallItem[]; text: string; usage: Usage | undefined }> {
    const journal = this.#journal;
    const calls: FunctionCallItem[] = [];
    let text = '';
    let reasoning = '';
    let usage: Usage | undefined;
    try {
      for await (const event of model.stream(request, { signal: this.#signal })) {
        if (event.type === 'text.delta') {
          output.started = true;
          text += event.delta;
          journal.emitDelta('text.delta', event.delta);
        } else if (event.type === 'reasoning.delta') {
          output.started = true;
          reasoning += event.delta;
          journal.emitDelta('reasoning.delta', event.delta);
        } else if (event.type === 'tool.call') {
          output.started = true;
          calls.push({
            type: 'function_call',
            callId: event.callId,
            name: event.name,
            arguments: event.arguments,
          });
        } else if (event.type === 'response.waiting') {
          journal.emit({
            type: 'model.waiting',
            model: modelName(model),
            host: event.host,
            waitedMs: event.waitedMs,
          });
        } else {
          usage = event.usage;
          journal.addUsage(event.usage);
          if (event.usage !== undefined) usages.push(event.usage);
        }
      }
    } finally {
      // What the user already saw stays in history, even when the stream broke off.
      if (reasoning !== '') journal.append([{ type: 'reasoning', text: reasoning }]);
      if (text !== '') journal.append([{ type: 'message', role: 'assistant', content: text }]);
    }
    return { calls, text, usage };
  }
}

/**
 * While other calls of the turn still run, stores each call's output as it settles (see
 * `RunJournal.settle`), so a crash loses only the calls still in flight. Returns the
 * unsubscribe function.
 */
function storeEachSettled(journal: RunJournal, tasks: readonly CallTask[]): () => void {
  const unsubscribers = tasks.map((task) =>
    task.subscribe(() => {
      const phase = task.phase;
      if (phase.phase !== 'settled') return;
      if (!tasks.some((other) => other.phase.phase === 'running')) return;
      journal.settle({
        type: 'function_call_output',
        callId: task.call.callId,
        output: phase.output,
      });
    }),
  );
  return () => unsubscribers.forEach((unsubscribe) => unsubscribe());
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new SwitchboardError('aborted', 'The run was stopped.');
}

function asRunError(error: unknown): SwitchboardError {
  if (isSwitchboardError(error)) return error;
  return new SwitchboardError('model_error', `The run failed: ${messageOf(error)}`, {
    cause: error,
  });
}
