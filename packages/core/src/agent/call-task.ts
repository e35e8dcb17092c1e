import { messageOf } from '../errors/message-of.ts';
import { SwitchboardError, isSwitchboardError } from '../errors/switchboard-error.ts';
import { Store } from '../internal/store.ts';
import { TOOL_ERROR_TEXT, toolError } from '../tools/tool-errors.ts';
import type { FunctionCallItem, ToolOutput, Usage } from '../vocabulary/items.ts';
import {
  isToolInterruptResult,
  type NestedChunkSource,
  type ToolProgress,
} from '../tools/tool-types.ts';
import type { InputRequest, ToolInterruptResult, ToolResume } from '../vocabulary/interrupts.ts';
import type { Interrupt, Resolution } from '../vocabulary/interrupts.ts';

/** Where a call stands. */
export type CallTaskPhase =
  | { phase: 'running' }
  /** Held for a human. `live`: the tool is still running, awaiting `requestInput`. */
  | { phase: 'waiting'; interrupt: Interrupt; resumeState?: unknown; live: boolean }
  | { phase: 'settled'; output: ToolOutput };

/** A starter's request to hold the call for approval before the tool runs (a hook said so). */
export interface ApprovalHold {
  readonly kind: 'switchboard.approval';
  interrupt: Interrupt;
}

/**
 * Starts (or restarts) the tool behind a task; see {@link CallTask}. `approved` is true once a
 * human approved this call, so the starter does not ask again.
 */
export type CallStarter = (
  task: CallTask,
  resume: ToolResume | undefined,
  approved: boolean,
) => Promise<ToolOutput | ToolInterruptResult | ApprovalHold>;

/**
 * The run that currently owns a call (see {@link CallTask.attach}): its signal stops the call,
 * and the call's progress is reported to it.
 */
export interface CallOwner {
  signal: AbortSignal;
  onProgress(progress: ToolProgress): void;
  /** A nested run's chunk (`ToolContext.reportNested`). */
  onNested?(chunk: NestedChunkSource): void;
  /** Model usage spent for the call (`ToolContext.reportUsage`). */
  onUsage?(usage: Usage): void;
}

/**
 * Outputs for approvals the human refused. The texts say that the call was not run (stored
 * threads carry them as they are); the error messages are the canonical sentences.
 */
const REFUSED: Record<'reject' | 'cancel', ToolOutput> = {
  reject: toolError(
    'rejected',
    TOOL_ERROR_TEXT.rejected,
    'The user declined this tool call; it was not run.',
  ),
  cancel: toolError(
    'cancelled',
    TOOL_ERROR_TEXT.cancelled,
    'The user cancelled this tool call; it was not run.',
  ),
};

/**
 * One tool call's life across pauses: running, waiting for a human, settled. A task that waits
 * on a live `requestInput` (a 2025-era pushed elicitation) keeps its tool running in memory, so
 * the agent keeps the task between the pause and the resume; any other waiting task can be
 * rebuilt from stored {@link Interrupt} + resume state after a reload.
 *
 * A {@link Store} of its {@link CallTaskPhase}: every phase change notifies the subscribers.
 */
export class CallTask extends Store<CallTaskPhase> {
  readonly call: FunctionCallItem;
  readonly #start: CallStarter;
  #approved = false;
  #answer: ((resolution: Resolution) => void) | undefined;
  #fail: ((error: unknown) => void) | undefined;

  /** The MCP server of the call's tool; asked when an interrupt is made (see the constructor). */
  readonly #server: () => string | undefined;
  /** Aborts the tool: when the owning run stops, or the call is abandoned. */
  readonly #controller = new AbortController();
  #owner: CallOwner | undefined;
  #release: (() => void) | undefined;

  /**
   * @param server The MCP server of the call's tool, looked up when the tool interrupts: a
   *   resumed run builds its tasks before it lists the tools again.
   */
  constructor(
    call: FunctionCallItem,
    start: CallStarter,
    server: () => string | undefined = () => undefined,
  ) {
    super({ phase: 'running' });
    this.call = call;
    this.#start = start;
    this.#server = server;
  }

  /** Where the call stands (the store's snapshot). */
  get phase(): CallTaskPhase {
    return this.getSnapshot();
  }

  /** The signal the tool runs with: aborted by the owning run's stop, or by {@link abandon}. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /**
   * Makes `owner` (a run) the owner of this call, replacing the previous one: from now on only
   * `owner.signal` stops the call, and progress goes to `owner`. A resumed run attaches the live
   * calls of the paused run it continues.
   */
  attach(owner: CallOwner): void {
    this.detach();
    this.#owner = owner;
    if (owner.signal.aborted) {
      this.#controller.abort(owner.signal.reason);
      return;
    }
    const signal = owner.signal;
    const onAbort = () => this.#controller.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    this.#release = () => signal.removeEventListener('abort', onAbort);
  }

  /** Leaves the call without an owner (its run paused): stopping that run no longer stops it. */
  detach(): void {
    this.#release?.();
    this.#release = undefined;
    this.#owner = undefined;
  }

  /** Reports the running tool's progress to the owning run. */
  progress(progress: ToolProgress): void {
    this.#owner?.onProgress(progress);
  }

  /** Streams a nested run's chunk to the owning run. */
  nested(chunk: NestedChunkSource): void {
    this.#owner?.onNested?.(chunk);
  }

  /** Adds usage spent for the call to the owning run's. */
  usage(usage: Usage): void {
    this.#owner?.onUsage?.(usage);
  }

  /** Runs the tool (again, with `resume`, after a pause). */
  run(resume?: ToolResume): void {
    this.#set({ phase: 'running' });
    this.#start(this, resume, this.#approved).then(
      (result) => {
        if ('kind' in result && result.kind === 'switchboard.approval') {
          this.holdForApproval(result.interrupt);
        } else if (isToolInterruptResult(result)) {
          this.#set({
            phase: 'waiting',
            interrupt: this.interruptFor(result.request),
            resumeState: result.resumeState,
            live: false,
          });
        } else {
          this.#set({ phase: 'settled', output: result as ToolOutput });
        }
      },
      (error: unknown) => {
        // A starter's own failure (e.g. a hook's `hook_failed`) keeps its code.
        const code = isSwitchboardError(error) ? error.code : 'tool_execution_failed';
        this.#set({ phase: 'settled', output: toolError(code, messageOf(error)) });
      },
    );
  }

  /** Holds the call for approval before it runs. */
  holdForApproval(interrupt: Interrupt): void {
    this.#set({ phase: 'waiting', interrupt, live: false });
  }

  /** Holds the call with a stored interrupt (a paused run read back from history). */
  restore(interrupt: Interrupt, resumeState: unknown): void {
    this.#set({ phase: 'waiting', interrupt, resumeState, live: false });
  }

  /** Ends the call with `output` without running it. */
  settle(output: ToolOutput): void {
    this.#set({ phase: 'settled', output });
  }

  /** For the running tool: wait for the human while the call stays open. */
  requestInput(request: InputRequest, resumeState: unknown): Promise<Resolution> {
    return new Promise<Resolution>((resolve, reject) => {
      this.#answer = resolve;
      this.#fail = reject;
      this.#set({
        phase: 'waiting',
        interrupt: this.interruptFor(request),
        resumeState,
        live: true,
      });
    });
  }

  /**
   * Delivers the human's answer: a live wait resumes the running tool; an approval runs the
   * tool or settles it as refused; a stored form/url interrupt, or a nested run's approval
   * (`Interrupt.nested`: the sub-agent hands the answer on), re-runs the tool with `resume`.
   */
  resolve(resolution: Resolution): void {
    const phase = this.getSnapshot();
    if (phase.phase !== 'waiting') {
      throw new SwitchboardError('unknown_call_id', `Call ${this.call.callId} is not waiting.`);
    }
    if (phase.live) {
      const answer = this.#answer;
      this.#answer = undefined;
      this.#fail = undefined;
      this.#set({ phase: 'running' });
      answer?.(resolution);
    } else if (phase.interrupt.mode === 'approval' && phase.interrupt.nested === undefined) {
      this.#approved = resolution.action === 'approve';
      if (resolution.action === 'approve') this.run();
      else this.settle(REFUSED[resolution.action]);
    } else {
      this.run({ resolution, resumeState: phase.resumeState });
    }
  }

  /**
   * Abandons the call (the run ended, or the thread moved on): a live wait fails and the tool's
   * signal aborts, so an MCP call is cancelled on the wire.
   */
  abandon(reason: unknown): void {
    const fail = this.#fail;
    this.#answer = undefined;
    this.#fail = undefined;
    this.detach();
    fail?.(reason);
    this.#controller.abort(reason);
  }

  /** `request` as the {@link Interrupt} of this call (its id, tool, server and arguments). */
  interruptFor(request: InputRequest): Interrupt {
    const interrupt: Interrupt = {
      callId: this.call.callId,
      toolName: this.call.name,
      arguments: parseArguments(this.call.arguments),
      mode: request.mode,
    };
    const server = this.#server();
    if (server !== undefined) interrupt.server = server;
    if (request.message !== undefined) interrupt.message = request.message;
    if (request.requestedSchema !== undefined) interrupt.requestedSchema = request.requestedSchema;
    if (request.url !== undefined) interrupt.url = request.url;
    if (request.elicitationId !== undefined) interrupt.elicitationId = request.elicitationId;
    if (request.reissued === true) interrupt.reissued = true;
    if (request.nested !== undefined) {
      interrupt.nested = request.nested;
      if (request.nested.annotations !== undefined) {
        interrupt.annotations = request.nested.annotations;
      }
    }
    return interrupt;
  }

  /** Every phase change: a settled call has no owner any more (its run's stop is moot). */
  #set(phase: CallTaskPhase): void {
    if (phase.phase === 'settled') this.detach();
    this.set(phase);
  }
}

/** Resolves once no task is running (each is waiting or settled). */
export function whenQuiet(tasks: readonly CallTask[]): Promise<void> {
  return new Promise((resolve) => {
    const unsubscribers: (() => void)[] = [];
    const check = () => {
      if (tasks.some((task) => task.phase.phase === 'running')) return;
      for (const unsubscribe of unsubscribers) unsubscribe();
      resolve();
    };
    for (const task of tasks) unsubscribers.push(task.subscribe(check));
    check();
  });
}

/** The parsed arguments of a call, or the raw string when it is not JSON. */
export function parseArguments(raw: string): unknown {
  try {
    return raw.trim() === '' ? {} : JSON.parse(raw);
  } catch {
    return raw;
  }
}
