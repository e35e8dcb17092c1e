import { SwitchboardError, isSwitchboardError } from '../errors/switchboard-error.ts';
import { messageOf } from '../errors/message-of.ts';
import type { SwitchboardErrorCode } from '../vocabulary/error-codes.ts';

/**
 * Runs the steps of a run: every model call (with its retries), every tool execution (an MCP
 * call is one), and every MCP tool listing goes through {@link StepRunner.run}
 * (docs/architecture.md, "Steps"). The default, {@link inProcessSteps}, calls the step; a
 * durable host (`@switchboard/restate`) journals each step's result so that a replay after a
 * crash returns the journaled result instead of running the step again.
 *
 * A human wait is not a step: the run pauses (`run.paused`, the row `paused` with its
 * interrupts) and a later `execute({ threadId, resolutions })` continues it. The paused run's
 * `(threadId, runId)` is the interrupt token a host turns into its own durable wait (a Restate
 * awakeable, a workflow signal).
 */
export interface StepRunner {
  /**
   * Runs `step` once and returns its result. `name` says what the step is (`model:<turn>`,
   * `tool:<callId>`, `mcp.list:<server>`). The result is JSON-serialisable; the step itself
   * never throws (failures are part of the result), so a runner never retries one.
   */
  run<T>(name: string, step: () => Promise<T>): Promise<T>;
  /**
   * True when steps are journaled by an engine that replays the run after a crash. The run then
   * skips the writes whose moment depends on timing rather than on the steps (lease renewals,
   * the output of one call while the other calls of its turn still run), which would differ on
   * replay; the engine, not the lease, tells whether a run is alive. Default false.
   */
  readonly durable?: boolean;
  /**
   * False while a durable engine replays the run up to where it had come: the run then pushes
   * no chunk to its handle (those chunks reached their readers when the steps really ran; a
   * replay only rebuilds the run's state). Default: always live.
   */
  live?(): boolean;
}

/** Today's behaviour: each step simply runs, in this process. */
export const inProcessSteps: StepRunner = {
  run: (_name, step) => step(),
};

/** A failure carried inside a step's result (errors are not serialisable). */
export interface StepFailure {
  code: SwitchboardErrorCode;
  message: string;
  details?: unknown;
}

/**
 * Runs `step` through `steps` and tells the caller whether the step ran here (`replayed:
 * false`) or its result came back from a journal (`replayed: true`, the step's in-process side
 * effects — chunks, journal appends — did not happen, so the caller applies them from the
 * result).
 */
export async function runStep<T>(
  steps: StepRunner,
  name: string,
  step: () => Promise<T>,
): Promise<{ value: T; replayed: boolean }> {
  if (steps === inProcessSteps) return { value: await step(), replayed: false };
  let ran = false;
  const value = await steps.run(name, () => {
    ran = true;
    return step();
  });
  return { value, replayed: !ran };
}

/** `error` as a {@link StepFailure}, for a step's result. */
export function toStepFailure(error: unknown): StepFailure {
  if (isSwitchboardError(error)) {
    const failure: StepFailure = { code: error.code, message: error.message };
    if (error.details !== undefined) failure.details = error.details;
    return failure;
  }
  return { code: 'model_error', message: messageOf(error) };
}

/** A {@link StepFailure} read back from a journal, as the error it was. */
export function fromStepFailure(failure: StepFailure): SwitchboardError {
  return new SwitchboardError(
    failure.code,
    failure.message,
    failure.details === undefined ? {} : ({ details: failure.details } as never),
  );
}
