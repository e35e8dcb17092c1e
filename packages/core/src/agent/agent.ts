import { SwitchboardError } from '../errors/switchboard-error.ts';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import type { HistoryStore, RunRecord } from '../history/history-store.ts';
import type { CallTask } from './call-task.ts';
import type { AgentEndpoint } from './agent-endpoint.ts';
import type { McpServer } from '../mcp/mcp-server.ts';
import type { AgentOptions, ExecuteInput, MessageInput } from './agent-options.ts';
import {
  acceptedAttachments,
  checkAttachments,
  DEFAULT_MAX_ATTACHMENT_BYTES,
  type AcceptedAttachment,
  isUserMessageInput,
  type PendingAttachment,
} from './attachment-input.ts';
import type { Model } from '../model/model.ts';
import type { MessageItem } from '../vocabulary/items.ts';
import type { RunHandle } from './run-result.ts';
import { loadRecovered } from './recover-run.ts';
import { ThreadCache } from './thread-cache.ts';
import { writeOtherRun } from './run-journal.ts';
import { startRun } from './run.ts';
import { toMessageItems } from './message-items.ts';
import { agentAsTool, type AgentToolOptions } from './agent-as-tool.ts';
import { abandonPause } from './abandon-pause.ts';
import type { Tool } from '../tools/tool-types.ts';
import { resolveModelRetryPolicy, type ResolvedModelRetryPolicy } from './model-retry-policy.ts';
import type { RunSetup } from './run.ts';
import { appCallOutput } from './app-call-output.ts';
import type { AppToolCallHandle, AppToolCallInput } from './app-tool-call.ts';
import {
  appContextItem,
  HeldModelContext,
  writeContextRow,
  type AppModelContextInput,
} from './app-model-context.ts';
import { ThreadRunEnds } from './thread-run-ends.ts';

/**
 * An agent: a model, instructions and tools, run in a loop (docs/architecture.md, "The life of a
 * run").
 *
 * ```ts
 * const agent = new Agent({ name: 'helper', model, mcpServers: [mcpServer({ url })] });
 * const run = agent.execute({ messages: 'What is 2 plus 3?' });
 * for await (const chunk of run.chunks) if (chunk.type === 'text.delta') print(chunk.delta);
 * ```
 */
export class Agent implements AgentEndpoint {
  readonly name: string;
  readonly options: Readonly<AgentOptions>;
  readonly history: HistoryStore;
  readonly #activeThreads = new Set<string>();
  /** Per thread: calls held open in memory while their run is paused (pushed elicitations). */
  readonly #liveCalls = new Map<string, Map<string, CallTask>>();
  /** This instance's id as the owner of run leases (see {@link AgentOptions.leaseMs}). */
  readonly #owner = crypto.randomUUID();
  /** `options.modelRetry` over the defaults. */
  readonly #modelRetry: ResolvedModelRetryPolicy;
  /** Wakes what waits for a run of a thread to end (an app call's output, held context). */
  readonly #runEnds = new ThreadRunEnds();
  /** Model context of MCP Apps views that came while their thread was busy. */
  readonly #heldContext = new HeldModelContext();
  /** The rows of the threads read last: reads ask the store only for what changed. */
  readonly #threads: ThreadCache;

  constructor(options: AgentOptions) {
    this.name = options.name;
    this.options = options;
    this.history = options.history ?? new MemoryHistoryStore();
    this.#threads = new ThreadCache(this.history);
    if (options.maxTurns !== undefined && !(options.maxTurns >= 1)) {
      throw new SwitchboardError('invalid_input', 'maxTurns must be at least 1.');
    }
    if (options.leaseMs !== undefined && !(options.leaseMs >= 3)) {
      throw new SwitchboardError('invalid_input', 'leaseMs must be at least 3 (ms).');
    }
    this.#modelRetry = resolveModelRetryPolicy(options.modelRetry);
  }

  /** `options.mcpServers`: the MCP servers this agent's runs use (see {@link AgentEndpoint}). */
  get mcpServers(): readonly McpServer[] | undefined {
    return this.options.mcpServers;
  }

  /**
   * The thread's run rows, oldest first (`[]` for an unknown thread), after recovering a run
   * that nobody runs any more: a `running` row whose lease expired or whose owner's presence
   * lock is free (the tab closed or reloaded, the process died mid-run; see `RunLease.lock`) becomes `failed` with code `outcome_unknown`, and each of its
   * calls without an output gets one saying its outcome is unknown — the same recovery the next
   * `execute` on the thread would do (see {@link AgentOptions.leaseMs}), so a UI that opens the
   * thread shows it as it will continue. A row of a run in progress (live lease, or this agent
   * running the thread now) is returned as it is.
   *
   * @throws SwitchboardError `history_error` when the store fails; `aborted` when `signal` aborts.
   */
  async loadThread(threadId: string, options: { signal?: AbortSignal } = {}): Promise<RunRecord[]> {
    // Copies: the cache's rows are shared by this agent's runs (see `ThreadCache`).
    if (this.#activeThreads.has(threadId)) {
      // Its `running` row is this agent's own live run: nothing to recover.
      return structuredClone(await this.#threads.load(threadId, options));
    }
    const runs = await loadRecovered(threadId, {
      history: this.history,
      owner: this.#owner,
      read: (id, readOptions) => this.#threads.load(id, readOptions),
      running: (id) => this.#threads.running(id),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      write: (row, expectedVersion) => {
        // Checked at write time, not only before the load: a run this agent started while the
        // rows were loading is live, and its `running` row must not be recovered.
        if (this.#activeThreads.has(threadId)) {
          throw new SwitchboardError('run_claimed', 'This agent is running the thread now.');
        }
        return writeOtherRun(this.history, row, expectedVersion);
      },
    });
    return structuredClone(runs);
  }

  /**
   * Starts a run, or resumes the thread's paused run, and returns its handle at once. Model →
   * tool calls (run in parallel, outputs kept in call order) → model … until the model answers
   * without tool calls, `maxTurns` model calls were made, or a call needs a human (the run
   * pauses: `run.paused`, status `paused`). Failures never throw here: they end the run with
   * `run.failed`. A refused resume (`not_paused`; `unknown_call_id` for a call that is not
   * waiting) ends that way too but writes nothing: the paused run stays paused and resumable.
   *
   * Runs are claimed in the history store (compare-and-set on the run row, see
   * `HistoryStore.compareAndSetRun`): of two resumes of one paused run — two tabs, two
   * processes, two `Agent` instances — exactly one proceeds; the other ends at once with
   * `run.failed` code `run_claimed`, having run nothing. A new message on a thread whose run is
   * running in another client (live lease) ends with `run_in_progress`; a run whose lease
   * expired is recovered first (see {@link AgentOptions.leaseMs}).
   *
   * `stop()` on a run that has already paused does nothing: the pause stays stored and
   * answerable, and calls held open for it (pushed elicitations) stay open. Each call belongs to
   * the run that currently owns the thread: stopping a resumed run stops the calls it continued.
   * To abandon a pause, send a new message: its pending calls are closed as unanswered and live
   * calls are cancelled on the server. `stop()` before a resume has claimed the run ends it
   * `cancelled` and leaves the pause as it was.
   *
   * @throws SwitchboardError `invalid_input` when there are neither messages nor resolutions,
   *   `modelRetry` is invalid, or an attachment is refused (too large, a type a model of the
   *   run does not accept, a history store without `attachments`; nothing is stored or sent); `run_in_progress` when this agent is already running the same
   *   thread.
   */
  execute(input: ExecuteInput): RunHandle {
    const threadId = input.threadId ?? crypto.randomUUID();
    let messages: MessageItem[] | undefined;
    let attachments: PendingAttachment[] = [];
    if (input.resolutions === undefined) {
      const inputs = Array.isArray(input.messages) ? input.messages : [input.messages];
      attachments = this.#checkAttachments(inputs, input.fallbackModels);
      messages = toMessageItems(inputs);
    } else if (input.resolutions.length === 0) {
      throw new SwitchboardError('invalid_input', 'execute() needs at least one resolution.');
    }
    const modelRetry = resolveModelRetryPolicy(input.modelRetry, this.#modelRetry);
    return this.#start(threadId, {
      ...(messages === undefined ? {} : { messages }),
      ...(attachments.length === 0 ? {} : { attachments }),
      ...(input.resolutions === undefined ? {} : { resolutions: input.resolutions }),
      ...(input.parentRunId === undefined ? {} : { parentRunId: input.parentRunId }),
      parentCall: input.parentCall,
      ...(input.steps === undefined ? {} : { steps: input.steps }),
      ...(input.runId === undefined ? {} : { runId: input.runId }),
      runContext: input.runContext,
      signal: input.signal,
      modelRetry,
      fallbackModels: input.fallbackModels ?? this.options.fallbackModels ?? [],
    });
  }

  /**
   * Makes a `tools/call` an MCP Apps view asked for (spec 2026-01-26, "Interactive Updates")
   * exactly as the model's calls are made, recorded in the view's thread as a run of its own
   * (docs/mcp-apps.md, "In the thread"): the tool must be on the view's own server with a
   * visibility naming `app`; the agent's approval decision applies (`approvalPolicy`, the tool's
   * `needsApproval`), and a call that needs approval pauses that run on an `approval` interrupt
   * (`requestedBy` names the view) that is answered like any other, with
   * `execute({ threadId, resolutions })` — claimed once, whatever tabs do, and still there after a
   * reload. The run calls no model; the call and its output are kept and shown, never sent to
   * the model (see `FunctionCallItem.requestedBy`). `output()` gives the view its result.
   *
   * @throws SwitchboardError `run_in_progress` when this agent is running the thread now. A
   *   thread paused or running in another client, an unknown tool or server, end the returned
   *   run `failed` (nothing stored) and `output()` says so.
   */
  callToolFromApp(input: AppToolCallInput): AppToolCallHandle {
    const callId = `app_${crypto.randomUUID()}`;
    const handle = this.#start(input.threadId, {
      appCall: {
        callId,
        view: input.view,
        name: input.name,
        arguments: input.arguments ?? {},
      },
      runContext: input.runContext,
      signal: input.signal,
      modelRetry: this.#modelRetry,
      fallbackModels: [],
    });
    return {
      get runId() {
        return handle.runId;
      },
      threadId: handle.threadId,
      chunks: handle.chunks,
      result: () => handle.result(),
      stop: () => handle.stop(),
      callId,
      output: async (options = {}) =>
        await appCallOutput(await handle.result(), {
          history: this.history,
          threadId: input.threadId,
          callId,
          runEnded: () => this.#runEnds.next(input.threadId),
          ...(options.signal === undefined ? {} : { signal: options.signal }),
          ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
        }),
    };
  }

  /**
   * Keeps the model context an MCP Apps view sent (`ui/update-model-context`, spec 2026-01-26)
   * with its thread, as untrusted context: the model reads the latest one per view on its next
   * turn, labelled as written by that view (server, tool, call id) and not by the user
   * (docs/mcp-apps.md, "In the thread"). Stored at once as a row of its own when the thread is
   * idle (so it survives a reload); while a run of the thread is running or paused it is held in
   * memory and stored when this agent's run of the thread ends (`held`).
   *
   * @throws SwitchboardError `history_error` when the store fails; `aborted`.
   */
  async updateModelContextFromApp(
    input: AppModelContextInput,
    options: { signal?: AbortSignal } = {},
  ): Promise<'stored' | 'held'> {
    const item = appContextItem(input);
    this.#heldContext.hold(input.threadId, { ...item, appContext: input.view });
    return (await this.#writeHeldContext(input.threadId, options.signal)) ? 'stored' : 'held';
  }

  /** Writes the thread's held model context when the thread is idle; true when it did. */
  async #writeHeldContext(threadId: string, signal?: AbortSignal): Promise<boolean> {
    if (!this.#heldContext.has(threadId)) return true;
    if (this.#activeThreads.has(threadId)) return false;
    const runs = await this.loadThread(threadId, signal === undefined ? {} : { signal });
    const last = runs.at(-1)?.status;
    if (last === 'running' || last === 'paused' || this.#activeThreads.has(threadId)) return false;
    const items = this.#heldContext.take(threadId);
    if (items.length === 0) return true;
    try {
      await writeContextRow(this.history, threadId, runs, items, signal);
    } catch (error) {
      for (const item of items) {
        if (item.appContext !== undefined) {
          this.#heldContext.hold(threadId, { ...item, appContext: item.appContext });
        }
      }
      throw error;
    }
    return true;
  }

  #start(
    threadId: string,
    run: Omit<RunSetup, 'agent' | 'history' | 'threadId' | 'liveCalls' | 'owner' | 'threads'>,
  ): RunHandle {
    if (this.#activeThreads.has(threadId)) {
      throw new SwitchboardError(
        'run_in_progress',
        `Thread ${threadId} already has a run in progress; stop it or wait for its result.`,
      );
    }
    this.#activeThreads.add(threadId);
    let liveCalls = this.#liveCalls.get(threadId);
    if (liveCalls === undefined) {
      liveCalls = new Map();
      this.#liveCalls.set(threadId, liveCalls);
    }
    const handle = startRun({
      ...run,
      agent: this.options,
      history: this.history,
      threadId,
      liveCalls,
      owner: this.#owner,
      threads: this.#threads,
    });
    void handle.result().finally(() => {
      this.#activeThreads.delete(threadId);
      if (liveCalls.size === 0) this.#liveCalls.delete(threadId);
      this.#runEnds.ended(threadId);
      // Context a view sent while the run went on is stored now that the thread is idle.
      this.#writeHeldContext(threadId).catch(() => undefined);
    });
    return handle;
  }

  /**
   * Closes the thread's paused run without starting another ("dismiss"): each waiting call gets
   * the `unanswered` output a new message would give it, calls held open for it are cancelled,
   * and a sub-agent pause it waited on (`Interrupt.nested`) is closed the same way. Returns false
   * when the thread has no paused run.
   *
   * @throws SwitchboardError `run_in_progress` when this agent is running the thread;
   *   `run_claimed` when another client resumed or closed the pause meanwhile (nothing
   *   written); `history_error`.
   */
  async abandonPause(threadId: string, options: { signal?: AbortSignal } = {}): Promise<boolean> {
    if (this.#activeThreads.has(threadId)) {
      throw new SwitchboardError('run_in_progress', `Thread ${threadId} has a run in progress.`);
    }
    const liveCalls = this.#liveCalls.get(threadId) ?? new Map<string, CallTask>();
    try {
      const tools = this.options.tools ?? [];
      return await abandonPause(
        threadId,
        { history: this.history, threads: this.#threads, liveCalls, tools },
        options.signal,
      );
    } finally {
      if (liveCalls.size === 0) this.#liveCalls.delete(threadId);
    }
  }

  /**
   * This agent as a tool of another agent: a sub-agent (docs/conversations.md, "Sub-agents").
   * Each call runs this agent in a thread of its own (in this agent's history store, linked to
   * the parent's call by `RunRecord.parentCall`); its chunks stream into the parent run as
   * `tool.nested` chunks of the call; its interrupts pause the parent run (the parent's
   * interrupt carries the nested one in `nested`), and answering the parent resumes it, also
   * after a reload; its usage is added to the parent run's; stopping the parent stops it.
   *
   * ```ts
   * const researcher = new Agent({ name: 'researcher', model, tools: [search] });
   * const lead = new Agent({
   *   name: 'lead',
   *   model,
   *   tools: [researcher.asTool({ description: 'Researches a question and reports back.' })],
   * });
   * ```
   *
   * @throws SwitchboardError `invalid_input` when the tool name (default: this agent's name) is
   *   not provider-safe (`^[a-zA-Z0-9_-]{1,64}$`).
   */
  asTool(options: AgentToolOptions): Tool {
    return agentAsTool(this, options);
  }

  /**
   * The files a message may attach (docs/conversations.md, "Attachments"): each MIME type that
   * the model and every fallback model accept (`Model.attachmentLimits`), with the largest size
   * in bytes they all take, capped by `maxAttachmentBytes`. Empty when the history store keeps
   * no attachments. `execute` refuses anything else with `invalid_input`; a UI offers exactly
   * these in its file picker. `fallbackModels`: a run's own (`ExecuteInput.fallbackModels`).
   */
  acceptedAttachments(fallbackModels?: readonly Model[]): AcceptedAttachment[] {
    return acceptedAttachments(this.#attachmentContext(fallbackModels));
  }

  /** The run's attachments, checked against its models and limits (see `checkAttachments`). */
  #checkAttachments(
    inputs: readonly MessageInput[],
    fallbackModels: readonly Model[] | undefined,
  ): PendingAttachment[] {
    const context = this.#attachmentContext(fallbackModels);
    return inputs.flatMap((message, index) =>
      isUserMessageInput(message) ? checkAttachments(message.attachments, index, context) : [],
    );
  }

  /** What a run's attachments are checked against: its models, the size cap, the store. */
  #attachmentContext(fallbackModels: readonly Model[] | undefined) {
    return {
      models: [this.options.model, ...(fallbackModels ?? this.options.fallbackModels ?? [])],
      maxBytes: this.options.maxAttachmentBytes ?? DEFAULT_MAX_ATTACHMENT_BYTES,
      store: this.history.attachments,
    };
  }
}
