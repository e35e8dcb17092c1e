import type { Client, StandardSchemaV1 } from '@modelcontextprotocol/client';
import { SwitchboardError } from '../../errors/switchboard-error.ts';
import type { ToolContext } from '../../tools/tool-types.ts';
import { refusedByUser, toolError } from '../../tools/tool-errors.ts';
import type { Resolution, ToolInterruptResult } from '../../vocabulary/interrupts.ts';
import type { ToolOutput } from '../../vocabulary/items.ts';
import type { CallTimer } from '../call-timer.ts';
import { CALL_TOOL_RESULT_SCHEMA } from '../call-tool-result-schema.ts';
import { CALL_ID_META_KEY } from '../elicitation-router.ts';
import { TASK_RESULT_META_KEY } from '../connection/task-result-envelope.ts';
import { scrubRequest, type McpCallScope } from './call-scope.ts';
import { nextElicitation, toElicitResult } from './elicitation.ts';
import {
  FRESH_CALL,
  type ResumeOutcome,
  type TaskPlan,
  type TaskResumeState,
} from './resume-state.ts';
import {
  LEGACY_TASK,
  MODERN_TASK,
  TASK_ACK,
  createdTask,
  fromLegacyTask,
  fromModernTask,
  type TaskSnapshot,
} from './task-wire.ts';

/*
 * MCP tasks (docs/mcp-servers.md, "Tasks"): a server answers `tools/call` with a task handle
 * instead of the result, and the client follows the task — `tasks/get` at the server's
 * `pollInterval(Ms)` until it ends — then takes its result (2026-07-28: inline in `tasks/get`;
 * 2025-11-25: from `tasks/result`). A task that needs input becomes the usual interrupt: a
 * 2026-07-28 `input_required` carries `inputRequests` (answered with `tasks/update`), a
 * 2025-11-25 one pushes its `elicitation/create` on `tasks/result`. Stopping the run or running
 * out of time sends `tasks/cancel`. The task's id and era are the call's resume state, so a
 * reload resumes polling instead of calling the tool again.
 */

/** The SDK's own timeout is switched off (our {@link CallTimer} keeps time); max setTimeout. */
const NO_SDK_TIMEOUT = 2_147_483_647;
/** First wait between two polls when the server suggests none, in ms; doubles up to the max. */
const DEFAULT_FIRST_POLL_MS = 250;
/** The longest wait between two polls, whatever the server suggests, in ms. */
const MAX_POLL_MS = 10_000;
/** The shortest wait between two polls, whatever the server suggests, in ms. */
const MIN_POLL_MS = 20;
/** How long a `tasks/cancel` sent while stopping may take, in ms. */
const CANCEL_TIMEOUT_MS = 5_000;

/** The task a `tools/call` result (as the SDK hands it over) announces, if any. */
export function taskOfResult(result: unknown): TaskSnapshot | undefined {
  const meta = (result as { _meta?: Record<string, unknown> } | null)?._meta;
  return meta === undefined ? undefined : createdTask(meta[TASK_RESULT_META_KEY]);
}

/** What {@link followTask} needs from the call that started (or resumed) the task. */
export interface TaskFollowScope {
  scope: McpCallScope;
  context: ToolContext;
  timer: CallTimer;
  /** The call's key for routing pushed requests (see `callMcpTool`). */
  callKey: string;
  /** The tool's original name (messages). */
  toolName: string;
  /** Maps a completed task's `CallToolResult` to the call's output. */
  finish(result: unknown): ToolOutput;
}

/**
 * Follows task `plan.taskId` to its end: polls, turns `input_required` into an interrupt, maps
 * the result. `first` is the task as `tools/call` announced it (none for a resumed call).
 * Aborting the call's signal (stop, time limit) sends `tasks/cancel` before the error is thrown.
 *
 * @returns The mapped result, an error output (task failed or cancelled), or an interrupt.
 * @throws What `McpConnection.use` throws; `ProtocolError` from `tasks/result` (2025 era), which
 *   `callMcpTool` maps to an error output.
 */
export async function followTask(
  follow: TaskFollowScope,
  plan: TaskPlan,
  first?: TaskSnapshot,
): Promise<ToolOutput | ToolInterruptResult> {
  const { scope, context, timer } = follow;
  const { taskId, era } = plan;
  const request = async <T>(
    method: string,
    params: Record<string, unknown>,
    schema: StandardSchemaV1<unknown, T>,
    exclusive = false,
  ): Promise<T> =>
    await scope.connection.use(
      context.runContext,
      async (client: Client) => {
        const detach = exclusive ? scope.router.attach(client, follow.callKey) : undefined;
        try {
          return await client.request({ method, params } as never, schema, {
            signal: timer.signal,
            timeout: NO_SDK_TIMEOUT,
          });
        } finally {
          detach?.();
        }
      },
      { signal: timer.signal, exclusive },
    );
  const poll = async (): Promise<TaskSnapshot> =>
    era === 'modern'
      ? fromModernTask(await request('tasks/get', { taskId }, MODERN_TASK))
      : fromLegacyTask(await request('tasks/get', { taskId }, LEGACY_TASK));

  try {
    if (plan.cancel === true) {
      await cancelTask(scope, context, taskId);
      return refusedByUser(
        'cancel',
        () => `The user gave up waiting for task ${taskId} of ${scope.where}; it was cancelled.`,
      );
    }
    // Stored with the run now: if this client goes away, the next one follows the same task.
    context.keepResumable?.(
      {
        mode: 'task',
        message: `${follow.toolName} runs as task ${taskId} on ${scope.where}; it was left running when the page closed. Resume to keep following it, or cancel it.`,
      },
      taskResumeState(taskId, era),
    );
    if (plan.respond !== undefined) {
      await request('tasks/update', { taskId, inputResponses: plan.respond }, TASK_ACK);
    }
    let snapshot = first ?? (await poll());
    let polls = 0;
    let wait = DEFAULT_FIRST_POLL_MS;
    for (;;) {
      timer.touch();
      context.reportProgress({
        progress: ++polls,
        message: scope.connection.scrubber.scrub(snapshot.statusMessage ?? snapshot.status),
        task: { taskId, status: snapshot.status },
      });
      if (snapshot.status === 'cancelled') {
        return toolError(
          'cancelled',
          `Task ${taskId} of ${follow.toolName} was cancelled on ${scope.where}.`,
        );
      }
      if (era === 'legacy' && snapshot.status !== 'working') {
        // Completed, failed, or waiting for input: `tasks/result` gives the result (or error),
        // and carries the pushed `elicitation/create` of a task that waits.
        const result = await request(
          'tasks/result',
          { taskId, _meta: { [CALL_ID_META_KEY]: follow.callKey } },
          CALL_TOOL_RESULT_SCHEMA,
          true,
        );
        return follow.finish(result);
      }
      if (snapshot.status === 'completed') return follow.finish(snapshot.result ?? {});
      if (snapshot.status === 'failed') {
        const error = snapshot.error;
        return toolError(
          error?.code ?? 'failed',
          scope.connection.scrubber.scrub(
            `Task ${taskId} of ${follow.toolName} failed on ${scope.where}` +
              (error === undefined ? '.' : `: ${error.message}`),
          ),
        );
      }
      if (snapshot.status === 'input_required') {
        return interruptForTaskInput(snapshot.inputRequests ?? {}, taskId, scope, context);
      }
      if (snapshot.pollIntervalMs === undefined) {
        await sleep(wait, timer.signal);
        wait = Math.min(wait * 2, MAX_POLL_MS);
      } else {
        await sleep(clampPoll(snapshot.pollIntervalMs), timer.signal);
      }
      snapshot = await poll();
    }
  } catch (error) {
    // Stopped or out of time: the server is told the result is no longer wanted.
    if (timer.signal.aborted) await cancelTask(scope, context, taskId);
    throw error;
  }
}

/**
 * The resume state of a call following a task: what a reload (or the answer to a task's
 * question) continues from.
 */
export function taskResumeState(taskId: string, era: 'legacy' | 'modern'): TaskResumeState {
  return { kind: 'task', taskId, era };
}

/**
 * Applies the human's answer to a call that holds a task: the next question of a 2026-07-28
 * `input_required` (another interrupt), or the plan to go on with the task — answers sent with
 * `tasks/update`, a 2025 pushed question's answer kept for when `tasks/result` asks it again,
 * or, for a task left behind by a reload, polling resumed (approve) or the task cancelled.
 */
export function resumeTask(
  state: TaskResumeState,
  resolution: Resolution,
  scope: McpCallScope,
  context: ToolContext,
): ResumeOutcome {
  const task: TaskPlan = { taskId: state.taskId, era: state.era };
  if (state.pushed !== undefined) {
    return {
      plan: { ...FRESH_CALL, task, storedAnswer: { request: state.pushed, resolution } },
    };
  }
  if (state.key === undefined || state.inputRequests === undefined) {
    return {
      plan: {
        ...FRESH_CALL,
        task: resolution.action === 'approve' ? task : { ...task, cancel: true },
      },
    };
  }
  const asked = (
    state.inputRequests[state.key] as { params?: { requestedSchema?: Record<string, unknown> } }
  )?.params?.requestedSchema;
  const answers = { ...state.answers, [state.key]: toElicitResult(resolution, asked) };
  const next = nextElicitation(state.inputRequests, answers);
  if (next !== undefined && 'invalid' in next) {
    return {
      settled: toolError(
        'invalid_input_request',
        scope.connection.scrubber.scrub(
          `Task ${state.taskId} of ${scope.where} sent an elicitation request ("${next.key}") that cannot be asked: ${next.invalid}.`,
        ),
      ),
    };
  }
  if (next !== undefined) {
    return {
      settled: context.interrupt(scrubRequest(scope, next.request), {
        ...state,
        answers,
        key: next.key,
      } satisfies TaskResumeState),
    };
  }
  return { plan: { ...FRESH_CALL, task: { ...task, respond: answers } } };
}

/** The interrupt for a 2026-07-28 task in `input_required`: its first elicitation request. */
function interruptForTaskInput(
  inputRequests: Record<string, unknown>,
  taskId: string,
  scope: McpCallScope,
  context: ToolContext,
): ToolOutput | ToolInterruptResult {
  const next = nextElicitation(inputRequests, {});
  if (next === undefined || 'invalid' in next) {
    return toolError(
      next === undefined ? 'unsupported_input_request' : 'invalid_input_request',
      scope.connection.scrubber.scrub(
        `Task ${taskId} of ${scope.where} asked for input this client cannot give` +
          (next === undefined ? ' (only elicitation is supported).' : `: ${next.invalid}.`),
      ),
    );
  }
  return context.interrupt(scrubRequest(scope, next.request), {
    kind: 'task',
    taskId,
    era: 'modern',
    inputRequests,
    answers: {},
    key: next.key,
  } satisfies TaskResumeState);
}

/** Sends `tasks/cancel` (best effort, its own short time limit): the call ends either way. */
async function cancelTask(
  scope: McpCallScope,
  context: ToolContext,
  taskId: string,
): Promise<void> {
  const signal = AbortSignal.timeout(CANCEL_TIMEOUT_MS);
  try {
    await scope.connection.use(
      context.runContext,
      async (client: Client) =>
        await client.request({ method: 'tasks/cancel', params: { taskId } } as never, TASK_ACK, {
          signal,
          timeout: CANCEL_TIMEOUT_MS,
        }),
      { signal },
    );
  } catch {
    // Cancellation is cooperative (and the server may be gone): the call's outcome stands.
  }
}

function clampPoll(ms: number): number {
  return Math.min(Math.max(ms, MIN_POLL_MS), MAX_POLL_MS);
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(asError(signal.reason));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(asError(signal.reason));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function asError(reason: unknown): unknown {
  return reason ?? new SwitchboardError('aborted', 'The call was stopped.');
}
