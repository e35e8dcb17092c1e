import { messageOf } from '../errors/message-of.ts';
import { SwitchboardError, isSwitchboardError } from '../errors/switchboard-error.ts';
import { TOOL_ERROR_TEXT, toolError } from '../tools/tool-errors.ts';
import type {
  HistoryStore,
  ModelFailureRecord,
  ParentCallRef,
  PendingCall,
  RunLease,
  RunRecord,
  RunStatus,
} from '../history/history-store.ts';
import type { ReplayChannel } from '../internal/replay-channel.ts';
import { realmPresence, type OwnerPresence } from '../internal/owner-presence.ts';
import { branchPath } from '../history/run-tree.ts';
import { addUsage } from './add-usage.ts';
import { BranchItems } from './branch-items.ts';
import type { FunctionCallOutputItem, Item, Usage } from '../vocabulary/items.ts';
import type { Chunk, ChunkPayload } from './chunks.ts';
import type { RunOutcome, RunResult } from './run-result.ts';

/** Default lease of a running run (ms): renewed every third of it while the run is alive. */
export const DEFAULT_LEASE_MS = 30_000;

/** What a {@link RunJournal} writes to and who it writes as. */
export interface RunJournalOptions {
  history: HistoryStore;
  threadId: string;
  channel: ReplayChannel<Chunk>;
  /** The lease owner id of this client (one per `Agent` instance). */
  owner: string;
  /** How long a claim lasts without renewal (ms). */
  leaseMs: number;
  /** The parent run's call when this run is a sub-agent's (see `RunRecord.parentCall`). */
  parentCall?: ParentCallRef | undefined;
  /**
   * Steps are journaled by a durable engine (`StepRunner.durable`): no lease renewals and no
   * writes while a turn's calls run, whose moments depend on timing (a replay must make the
   * same writes in the same order). Default false.
   */
  durable?: boolean;
  /** False while a durable engine replays the run: chunks are numbered, not pushed. */
  live?: () => boolean;
  /**
   * Tells other clients whether this page is still there (the lease's `lock`). Default this
   * page's or worker's own (`realmPresence()`); a durable journal holds none.
   */
  presence?: OwnerPresence;
}

/**
 * The record of one run, and its only writer: the journal alone emits the run's chunks, appends
 * its items and writes its row. Every state change — claimed, model turn, calls settled, paused,
 * stopped, failed — is one compare-and-set write of the whole row (`HistoryStore.compareAndSetRun`
 * against the version the journal last wrote), so it is stored entirely or not at all, and a
 * journal that lost its claim to another client writes nothing more (`run_claimed`).
 *
 * While the row is `running` the journal holds a lease (owner, expiry) and renews it every
 * third of `leaseMs` (heartbeat); a row whose lease expired is recovered by the next client that
 * loads the thread (see `recoverStaleRuns`). In a browser the lease also names the page's
 * presence lock (`OwnerPresence`), held from the claim until the row is no longer this run's
 * `running` one, so a page that closed or reloaded leaves a run others recover at once; after a
 * restore from the back/forward cache the journal renews its lease first, by compare-and-set.
 */
export class RunJournal {
  readonly threadId: string;
  readonly #history: HistoryStore;
  readonly #channel: ReplayChannel<Chunk>;
  readonly #owner: string;
  readonly #leaseMs: number;
  readonly #durable: boolean;
  readonly #live: (() => boolean) | undefined;
  /** The run's id; set by {@link beginNew} or {@link continuePaused}. */
  runId = '';
  #sequence = 0;
  #createdAt = Date.now();
  #previous = BranchItems.of([]);
  #previousPlain = false;
  /** The run's parent in the thread's tree (`undefined`: an old row that has no link). */
  #parentRunId: string | null | undefined;
  #output: Item[] = [];
  #usage: Usage = { inputTokens: 0, outputTokens: 0 };
  #activated: string[] = [];
  #pending: PendingCall[] = [];
  /** Outputs of this turn's calls that settled before the turn ended (see `RunState.settled`). */
  #settled: FunctionCallOutputItem[] = [];
  /** This turn's running calls another client could resume (see `RunState.resumable`). */
  #resumable: PendingCall[] = [];
  /** The version of the row as this journal last wrote or read it (0: no row yet). */
  #version = 0;
  #started = false;
  /** True once a claim of this run was written: from then on this journal owns the row. */
  #claimed = false;
  /** Set once another client took the row: nothing more is written. */
  #lost: SwitchboardError | undefined;
  /** Writes in order (commits and heartbeats never race on the version). */
  #writes: Promise<unknown> = Promise.resolve();
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  /** The row as this journal last wrote it. */
  #lastRow: RunRecord | undefined;
  /** Failed model attempts that were retried or handed on (see `RunRecord.modelFailures`). */
  #modelFailures: ModelFailureRecord[] = [];
  #parentCall: ParentCallRef | undefined;
  readonly #presence: OwnerPresence | undefined;
  /** Set while this journal is a member of {@link #presence} (from the claim to the end). */
  #leavePresence: (() => void) | undefined;
  #stopRestoredRenewal: (() => void) | undefined;

  constructor(options: RunJournalOptions) {
    this.threadId = options.threadId;
    this.#parentCall = options.parentCall;
    this.#history = options.history;
    this.#channel = options.channel;
    this.#owner = options.owner;
    this.#leaseMs = options.leaseMs;
    this.#durable = options.durable === true;
    this.#live = options.live;
    // A presence lock says something only to readers that share this realm's lock manager.
    this.#presence =
      this.#durable || options.history.sharedWithinLockScope !== true
        ? undefined
        : (options.presence ?? realmPresence());
  }

  /** Items of the thread before this run (shared with the thread cache: see `BranchItems`). */
  get previous(): BranchItems {
    return this.#previous;
  }

  /** Items this run added so far (stored or about to be). */
  get output(): readonly Item[] {
    return this.#output;
  }

  get usage(): Usage {
    return this.#usage;
  }

  get activated(): readonly string[] {
    return this.#activated;
  }

  get pending(): readonly PendingCall[] {
    return this.#pending;
  }

  /** True once this journal claimed the run row (a write of it succeeded). */
  get claimed(): boolean {
    return this.#claimed;
  }

  /**
   * Prepares a new run after `parentRunId` of the thread's `runs` (`null`: at the thread's
   * start), starting with `messages`: the model reads that branch only. Keeps the run id the
   * handle already has. `branch`: that branch as the thread cache keeps it (no walk of `runs`).
   */
  beginNew(
    runs: readonly RunRecord[],
    messages: readonly Item[],
    parentRunId: string | null,
    branch?: { last: RunRecord | undefined; items: BranchItems; plain: boolean },
  ): void {
    this.ensureRunId();
    this.#parentRunId = parentRunId;
    if (branch === undefined) {
      const path = branchPath(runs, parentRunId ?? undefined);
      this.#previous = BranchItems.of(path.flatMap((run) => run.items));
      this.#activated = path.at(-1)?.state?.activatedTools ?? [];
    } else {
      this.#previous = branch.items;
      this.#previousPlain = branch.plain;
      this.#activated = branch.last?.state?.activatedTools ?? [];
    }
    this.#output = [...messages];
  }

  /**
   * True when {@link previous} is known to hold no MCP Apps view's call or model context, so
   * `modelItems` need not look through it.
   */
  get previousPlain(): boolean {
    return this.#previousPlain;
  }

  /** Prepares the continuation of the paused row `paused` (the last of `runs`). */
  continuePaused(runs: readonly RunRecord[], paused: RunRecord): void {
    this.runId = paused.runId;
    this.#sequence = (paused.lastSequence ?? -1) + 1;
    this.#createdAt = paused.createdAt;
    this.#previous = BranchItems.of(
      branchPath(runs, paused.runId)
        .slice(0, -1)
        .flatMap((run) => run.items),
    );
    if (paused.parentRunId !== undefined) this.#parentRunId = paused.parentRunId;
    this.#output = [...paused.items];
    this.#usage = paused.usage ?? this.#usage;
    this.#activated = paused.state?.activatedTools ?? [];
    this.#pending = paused.state?.pending ?? [];
    this.#version = paused.version ?? 0;
    this.#modelFailures = [...(paused.modelFailures ?? [])];
    this.#parentCall = paused.parentCall ?? this.#parentCall;
  }

  /** A run id for chunks of a run that failed before it had one. */
  ensureRunId(): void {
    if (this.runId === '') this.runId = crypto.randomUUID();
  }

  /** Emits `run.started` once. */
  emitStarted(): void {
    if (this.#started) return;
    this.#started = true;
    this.emit({ type: 'run.started', threadId: this.threadId });
  }

  /** Emits one chunk, numbered after the previous one. */
  emit(payload: ChunkPayload): void {
    if (this.#live?.() === false) {
      this.#sequence++;
      return;
    }
    this.#channel.push({ ...payload, runId: this.runId, sequence: this.#sequence++ } as Chunk);
  }

  /**
   * Emits one `text.delta` or `reasoning.delta` chunk, as {@link emit} does. Deltas come by the
   * thousand: the chunk is built as one literal (no payload object first, and no spread, which
   * V8 copies key by key).
   */
  emitDelta(type: 'text.delta' | 'reasoning.delta', delta: string): void {
    if (this.#live?.() === false) {
      this.#sequence++;
      return;
    }
    this.#channel.push({ type, delta, runId: this.runId, sequence: this.#sequence++ });
  }

  /** Adds items to the run; the next write stores them. */
  append(items: readonly Item[]): void {
    this.#output.push(...items);
  }

  addUsage(usage: Usage | undefined): void {
    this.#usage = addUsage(this.#usage, usage);
  }

  /** Records a failed model attempt that is retried or handed on; the next write stores it. */
  noteModelFailure(failure: ModelFailureRecord): void {
    this.#modelFailures.push(failure);
  }

  setActivated(names: readonly string[]): void {
    this.#activated = [...names];
  }

  /**
   * Claims the row as `running` under this client's lease, with `pending` left waiting (a
   * resume removes the calls it answers). Starts the heartbeat.
   *
   * @throws SwitchboardError `run_claimed` when another client wrote the row first (nothing was
   *   written); `history_error` when the store fails.
   */
  async claim(pending: readonly PendingCall[] = []): Promise<void> {
    this.#pending = [...pending];
    // Before the row says `running`: the lease it writes names the lock, which must be held.
    this.#leavePresence ??= await this.#presence?.join();
    try {
      await this.#write('running', 'claim the run');
    } catch (error) {
      this.#leave();
      throw error;
    }
    this.#claimed = true;
    this.#startHeartbeat();
  }

  /**
   * Stores one call's output as soon as it settles, while other calls of the turn still run
   * (kept in the row's `state.settled` until {@link endTurn}). A failed write is left to the
   * next one to report.
   */
  settle(output: FunctionCallOutputItem): void {
    if (this.#settled.some((item) => item.callId === output.callId)) return;
    this.#settled.push(output);
    if (this.#durable) return;
    this.#write('running', 'save the run').catch(() => undefined);
  }

  /**
   * Stores that a running call can be resumed by another client (`ToolContext.keepResumable`):
   * one write now, kept in the row's `state.resumable` until the turn ends. A failed write is
   * left to the next one to report.
   */
  keepResumable(pending: PendingCall): void {
    const callId = pending.call.callId;
    this.#resumable = [...this.#resumable.filter((entry) => entry.call.callId !== callId), pending];
    if (this.#durable) return;
    this.#write('running', 'save the run').catch(() => undefined);
  }

  /** Ends a turn: its outputs (`outputs`, in call order) join the items; see {@link commit}. */
  endTurn(outputs: readonly FunctionCallOutputItem[]): void {
    this.#settled = [];
    this.#resumable = [];
    this.#output.push(...outputs);
  }

  /**
   * Stores the run as it stands (`running`, calls settled so far).
   *
   * @throws SwitchboardError `run_claimed` or `history_error` as {@link claim}.
   */
  async commit(): Promise<void> {
    await this.#write('running', 'save the run');
  }

  /**
   * Writes the row of an earlier run of the thread that this run closes (an abandoned pause, a
   * recovered crash): one compare-and-set against `expectedVersion`. Returns the new version.
   *
   * @throws SwitchboardError `run_claimed` when the row changed meanwhile (nothing written);
   *   `history_error` when the store fails.
   */
  async writeOther(row: RunRecord, expectedVersion: number): Promise<number> {
    return await writeOtherRun(this.#history, row, expectedVersion);
  }

  /**
   * Ends the run: closes calls left without an output (unless `paused`, which keeps `pending`),
   * writes the final row, emits the terminal chunk and returns the result. A store failure turns
   * the outcome into `failed` with `history_error`; a lost claim into `failed` with
   * `run_claimed`, writing nothing.
   */
  async finish(
    outcome: RunOutcome,
    error?: SwitchboardError,
    pending: readonly PendingCall[] = [],
  ): Promise<RunResult> {
    try {
      return await this.#finish(outcome, error, pending);
    } finally {
      // After the terminal write, never before: until then the stored row is `running` as ours,
      // and a free lock would let another client recover a run that is about to complete.
      this.#leave();
    }
  }

  async #finish(
    outcome: RunOutcome,
    error: SwitchboardError | undefined,
    pending: readonly PendingCall[],
  ): Promise<RunResult> {
    this.#stopHeartbeat();
    this.#pending = outcome === 'paused' ? [...pending] : [];
    if (outcome !== 'paused') this.#closeUnansweredCalls(outcome);
    const terminal = this.#terminalChunk(outcome, error);
    if (this.#lost !== undefined) return this.#fail(this.#lost);
    try {
      // The row records the terminal chunk's sequence, so a resumed run continues numbering.
      await this.#write(outcome, 'save the run', this.#sequence, error);
    } catch (writeError) {
      const failure = asHistoryError(writeError);
      if (outcome !== 'failed' && !isSwitchboardError(failure, 'run_claimed')) {
        return await this.#finish('failed', failure, []);
      }
      return this.#fail(isSwitchboardError(failure, 'run_claimed') ? failure : (error ?? failure));
    }
    this.emit(terminal);
    return this.result(outcome, error);
  }

  /**
   * Ends a run that wrote nothing (a refused or cancelled resume, a lost claim): emits the
   * terminal chunk and returns the result; the stored thread stays as it was.
   */
  endUnwritten(outcome: 'failed' | 'cancelled', error?: SwitchboardError): RunResult {
    this.#stopHeartbeat();
    this.#leave();
    this.emitStarted();
    this.emit(this.#terminalChunk(outcome, error));
    return {
      runId: this.runId,
      threadId: this.threadId,
      status: outcome,
      output: [],
      interrupts: [],
      usage: { inputTokens: 0, outputTokens: 0 },
      ...(error === undefined ? {} : { error }),
    };
  }

  /**
   * After a resume that claimed nothing but emitted chunks under the paused run's id: records
   * their last sequence in the paused row, so the next resume does not number its chunks the
   * same. A compare-and-set against the version read: it never undoes another client's claim.
   */
  async keepNumbering(paused: RunRecord): Promise<void> {
    try {
      await this.#history.compareAndSetRun(
        { ...paused, lastSequence: this.#sequence - 1 },
        paused.version ?? 0,
      );
    } catch {
      // Best effort: only the numbering of a later resume's chunks is at stake.
    }
  }

  /** The run's result with `outcome` (the interrupts of a `paused` run). */
  result(outcome: RunOutcome, error?: SwitchboardError): RunResult {
    const result: RunResult = {
      runId: this.runId,
      threadId: this.threadId,
      status: outcome,
      output: [...this.#output],
      interrupts: outcome === 'paused' ? this.#pending.map((pending) => pending.interrupt) : [],
      usage: this.#usage,
    };
    if (error !== undefined) result.error = error;
    return result;
  }

  #fail(error: SwitchboardError): RunResult {
    this.emit({ type: 'run.failed', error });
    return this.result('failed', error);
  }

  /** One compare-and-set of the whole row, after every earlier write of this journal. */
  #write(
    status: RunStatus,
    what: string,
    lastSequence = this.#sequence - 1,
    error?: SwitchboardError,
  ): Promise<void> {
    const row = this.#record(status, lastSequence, error);
    const written = this.#writes.then(() => this.#writeRow(row, what));
    this.#writes = written.catch(() => undefined);
    return written;
  }

  async #writeRow(row: RunRecord, what: string): Promise<void> {
    if (this.#lost !== undefined) throw this.#lost;
    let result;
    try {
      // No signal: a state change is stored whole even when the run is being stopped.
      result = await this.#history.compareAndSetRun(row, this.#version);
    } catch (error) {
      throw asHistoryError(error, what);
    }
    if (!result.written) {
      const error = new SwitchboardError(
        'run_claimed',
        `Run ${row.runId} of thread ${this.threadId} was claimed by another client ` +
          '(another tab, process or Agent resumed, stopped or recovered it); this one ran nothing more.',
        { details: { runId: row.runId, status: result.current?.status } },
      );
      // Before the claim, a conflict only means "not ours yet" (see `claimPausedRun`'s retry).
      if (!this.#claimed) throw error;
      this.#lost = error;
      this.#stopHeartbeat();
      // The row is another client's now: this page's presence no longer speaks for it.
      this.#leave();
      throw error;
    }
    this.#version = result.version;
    this.#lastRow = row;
  }

  #record(status: RunStatus, lastSequence: number, error?: SwitchboardError): RunRecord {
    const row: RunRecord = {
      runId: this.runId,
      threadId: this.threadId,
      status,
      items: [...this.#output],
      usage: this.#usage,
      state: { version: 1, pending: [...this.#pending], activatedTools: [...this.#activated] },
      lastSequence,
      createdAt: this.#createdAt,
      updatedAt: Date.now(),
    };
    if (this.#parentRunId !== undefined) row.parentRunId = this.#parentRunId;
    if (error !== undefined) row.error = { code: error.code, message: error.message };
    if (this.#modelFailures.length > 0) row.modelFailures = [...this.#modelFailures];
    if (this.#parentCall !== undefined) row.parentCall = this.#parentCall;
    if (status === 'running' && this.#settled.length > 0 && row.state !== undefined) {
      row.state.settled = [...this.#settled];
    }
    if (status === 'running' && this.#resumable.length > 0 && row.state !== undefined) {
      const settled = new Set(this.#settled.map((output) => output.callId));
      const open = this.#resumable.filter((entry) => !settled.has(entry.call.callId));
      if (open.length > 0) row.state.resumable = open;
    }
    if (status === 'running') row.lease = this.#lease();
    return row;
  }

  /** This journal's lease from now: `leaseMs`, and the presence lock once held. */
  #lease(): RunLease {
    const lease: RunLease = { owner: this.#owner, expiresAt: Date.now() + this.#leaseMs };
    const lock = this.#leavePresence === undefined ? undefined : this.#presence?.leaseLock;
    if (lock !== undefined) lease.lock = lock;
    return lease;
  }

  /** Leaves the presence (once; a no-op when not a member). */
  #leave(): void {
    this.#stopRestoredRenewal?.();
    this.#stopRestoredRenewal = undefined;
    this.#leavePresence?.();
    this.#leavePresence = undefined;
  }

  #startHeartbeat(): void {
    if (this.#heartbeat !== undefined || this.#durable) return;
    let renewing = false;
    const renew = (): void => {
      const last = this.#lastRow;
      if (renewing || last?.status !== 'running') return;
      renewing = true;
      // Renews the lease of the row as last written (its items unchanged).
      const renewal = this.#writes.then(async () => {
        if (this.#heartbeat === undefined || this.#lastRow !== last) return;
        await this.#writeRow(
          { ...last, lease: this.#lease(), updatedAt: Date.now() },
          'renew the lease',
        );
      });
      this.#writes = renewal
        .catch(() => undefined)
        .finally(() => {
          renewing = false;
        });
    };
    this.#heartbeat = setInterval(renew, Math.max(1, Math.floor(this.#leaseMs / 3)));
    // Under Node, a pending renewal never keeps the process alive.
    (this.#heartbeat as { unref?: () => void }).unref?.();
    // Back from the back/forward cache, the lock was let go meanwhile and another client may
    // have recovered the run: renew now, so a lost claim is found before the run goes on.
    this.#stopRestoredRenewal ??= this.#presence?.onRestored(renew);
  }

  #stopHeartbeat(): void {
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }

  #terminalChunk(outcome: RunOutcome, error?: SwitchboardError): ChunkPayload {
    if (outcome === 'completed')
      return { type: 'run.completed', usage: this.#usage, output: [...this.#output] };
    if (outcome === 'cancelled') return { type: 'run.cancelled' };
    if (outcome === 'paused')
      return { type: 'run.paused', interrupts: this.#pending.map((p) => p.interrupt) };
    return {
      type: 'run.failed',
      error: error ?? new SwitchboardError('model_error', 'The run failed.'),
    };
  }

  /**
   * Keeps the invariant "every function_call has exactly one function_call_output": calls left
   * without an output when a run stops or fails get a synthetic error output.
   */
  #closeUnansweredCalls(outcome: RunOutcome): void {
    const answered = new Set(
      this.#output.flatMap((item) => (item.type === 'function_call_output' ? [item.callId] : [])),
    );
    for (const item of [...this.#output]) {
      if (item.type !== 'function_call' || answered.has(item.callId)) continue;
      this.#output.push(unfinishedCallOutput(item.callId, outcome));
    }
  }
}

/** The synthetic error output of a call the run ended (`outcome`) before it finished. */
export function unfinishedCallOutput(callId: string, outcome: RunOutcome): FunctionCallOutputItem {
  // A completed run answered all its calls; were one left, it did not finish either: `failed`.
  const output =
    outcome === 'cancelled'
      ? toolError('cancelled', TOOL_ERROR_TEXT.stoppedBeforeFinish)
      : toolError('failed', TOOL_ERROR_TEXT.failedBeforeFinish);
  return { type: 'function_call_output', callId, output };
}

/**
 * One compare-and-set of a row no live run of this client owns (an abandoned pause, a recovered
 * crash): see {@link RunJournal.writeOther}. Returns the new version. Kept here so that the
 * journal module stays the only code that writes run rows.
 *
 * @throws SwitchboardError `run_claimed` when the row changed meanwhile (nothing written);
 *   `history_error` when the store fails.
 */
export async function writeOtherRun(
  history: HistoryStore,
  row: RunRecord,
  expectedVersion: number,
): Promise<number> {
  let result;
  try {
    result = await history.compareAndSetRun(row, expectedVersion);
  } catch (error) {
    throw asHistoryError(error, 'save the run');
  }
  if (!result.written) {
    throw new SwitchboardError(
      'run_claimed',
      `Run ${row.runId} of thread ${row.threadId} was changed by another client meanwhile.`,
      { details: { runId: row.runId, status: result.current?.status } },
    );
  }
  return result.version;
}

/** A store failure as `history_error` (`history_error` and `run_claimed` kept as they are). */
export function asHistoryError(error: unknown, what = 'save the run'): SwitchboardError {
  if (isSwitchboardError(error, 'history_error') || isSwitchboardError(error, 'run_claimed')) {
    return error;
  }
  return new SwitchboardError('history_error', `Could not ${what}: ${messageOf(error)}`, {
    cause: error,
  });
}
