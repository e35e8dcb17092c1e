import { SwitchboardError } from '../errors/switchboard-error.ts';
import { MemoryHistoryStore } from '../history/memory-history-store.ts';
import type { HistoryStore, RunRecord } from '../history/history-store.ts';
import type { CallTask } from './call-task.ts';
import type { AgentOptions, ExecuteInput } from './agent-options.ts';
import type { MessageItem } from '../vocabulary/items.ts';
import type { RunHandle } from './run-result.ts';
import { loadRecovered } from './recover-run.ts';
import { writeOtherRun } from './run-journal.ts';
import { startRun } from './run.ts';
import { resolveModelRetryPolicy, type ResolvedModelRetryPolicy } from './model-retry-policy.ts';

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
export class Agent {
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

  constructor(options: AgentOptions) {
    this.name = options.name;
    this.options = options;
    this.history = options.history ?? new MemoryHistoryStore();
    if (options.maxTurns !== undefined && !(options.maxTurns >= 1)) {
      throw new SwitchboardError('invalid_input', 'maxTurns must be at least 1.');
    }
    if (options.leaseMs !== undefined && !(options.leaseMs >= 3)) {
      throw new SwitchboardError('invalid_input', 'leaseMs must be at least 3 (ms).');
    }
    this.#modelRetry = resolveModelRetryPolicy(options.modelRetry);
  }

  /**
   * The thread's run rows, oldest first (`[]` for an unknown thread), after recovering a run
   * that nobody runs any more: a `running` row whose lease expired (the tab closed or reloaded,
   * the process died mid-run) becomes `failed` with code `outcome_unknown`, and each of its
   * calls without an output gets one saying its outcome is unknown — the same recovery the next
   * `execute` on the thread would do (see {@link AgentOptions.leaseMs}), so a UI that opens the
   * thread shows it as it will continue. A row of a run in progress (live lease, or this agent
   * running the thread now) is returned as it is.
   *
   * @throws SwitchboardError `history_error` when the store fails; `aborted` when `signal` aborts.
   */
  async loadThread(threadId: string, options: { signal?: AbortSignal } = {}): Promise<RunRecord[]> {
    if (this.#activeThreads.has(threadId)) {
      // Its `running` row is this agent's own live run: nothing to recover.
      return await this.history.loadRuns(threadId, options);
    }
    return await loadRecovered(threadId, {
      history: this.history,
      owner: this.#owner,
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
   * @throws SwitchboardError `invalid_input` when there are neither messages nor resolutions, or
   *   `modelRetry` is invalid; `run_in_progress` when this agent is already running the same
   *   thread.
   */
  execute(input: ExecuteInput): RunHandle {
    const threadId = input.threadId ?? crypto.randomUUID();
    let messages: MessageItem[] | undefined;
    if (input.resolutions === undefined) {
      messages = (Array.isArray(input.messages) ? input.messages : [input.messages]).map(
        (message): MessageItem =>
          typeof message === 'string'
            ? { type: 'message', role: 'user', content: message }
            : message,
      );
      if (messages.length === 0) {
        throw new SwitchboardError('invalid_input', 'execute() needs at least one message.');
      }
    } else if (input.resolutions.length === 0) {
      throw new SwitchboardError('invalid_input', 'execute() needs at least one resolution.');
    }
    const modelRetry = resolveModelRetryPolicy(input.modelRetry, this.#modelRetry);
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
      agent: this.options,
      history: this.history,
      threadId,
      ...(messages === undefined ? {} : { messages }),
      ...(input.resolutions === undefined ? {} : { resolutions: input.resolutions }),
      runContext: input.runContext,
      signal: input.signal,
      liveCalls,
      owner: this.#owner,
      modelRetry,
      fallbackModels: input.fallbackModels ?? this.options.fallbackModels ?? [],
      ...(input.steps === undefined ? {} : { steps: input.steps }),
      ...(input.runId === undefined ? {} : { runId: input.runId }),
    });
    void handle.result().finally(() => {
      this.#activeThreads.delete(threadId);
      if (liveCalls.size === 0) this.#liveCalls.delete(threadId);
    });
    return handle;
  }
}
