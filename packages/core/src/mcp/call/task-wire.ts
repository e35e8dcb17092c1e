import * as z from 'zod/v4';

/*
 * The wire shapes of MCP tasks, both eras. SDK v2 (2.4.0) has no task API: it keeps the 2025
 * task types as deprecated vocabulary and lets `tasks/get` / `tasks/cancel` through to a
 * 2026-07-28 peer only with an explicit result schema (`request(…, schema)`); `tasks/update` is
 * an extension method it does not know. So every task request is a raw `client.request` with
 * these schemas (docs/mcp-servers.md, "Tasks").
 *
 * - 2025-11-25 (experimental core feature, "Tasks"): `tools/call` with `params.task: {ttl?}`
 *   answers a `CreateTaskResult` `{task: Task}`; `tasks/get` answers the `Task`; `tasks/result`
 *   blocks until the task ends and answers the `CallToolResult` (and carries the task's pushed
 *   `elicitation/create` while it is `input_required`); `tasks/cancel`.
 * - 2026-07-28 (extension `io.modelcontextprotocol/tasks`, SEP-2663): the server may answer any
 *   `tools/call` of a client that declared the extension with `resultType: "task"` and the task
 *   fields inline; `tasks/get` answers the task with `result` (completed), `error` (failed) or
 *   `inputRequests` (input_required); answers go back with `tasks/update {inputResponses}`;
 *   `tasks/cancel` is cooperative.
 */

/** The extension id a 2026-07-28 client declares to receive tasks (SEP-2663). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** Task statuses of both eras; `completed`, `failed` and `cancelled` are terminal. */
export const TASK_STATUS = z.enum([
  'working',
  'input_required',
  'completed',
  'failed',
  'cancelled',
]);
export type TaskStatus = z.infer<typeof TASK_STATUS>;

/** True for a status after which a task never changes. */
export function isTerminalStatus(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** The 2025-11-25 `Task` (what `tasks/get` answers, and `CreateTaskResult.task`). */
export const LEGACY_TASK = z.looseObject({
  taskId: z.string().min(1),
  status: TASK_STATUS,
  statusMessage: z.string().optional(),
  /** Suggested ms between two `tasks/get`. */
  pollInterval: z.number().nonnegative().optional(),
  ttl: z.number().nullable().optional(),
});

/** The 2025-11-25 `CreateTaskResult`. */
export const LEGACY_CREATE_TASK_RESULT = z.looseObject({ task: LEGACY_TASK });

const JSON_RPC_ERROR = z.looseObject({
  code: z.number(),
  message: z.string(),
  data: z.unknown().optional(),
});

/** The 2026-07-28 task as `tasks/get` (and `notifications/tasks`) carries it. */
export const MODERN_TASK = z.looseObject({
  taskId: z.string().min(1),
  status: TASK_STATUS,
  statusMessage: z.string().optional(),
  /** Suggested ms between two `tasks/get`. */
  pollIntervalMs: z.number().nonnegative().optional(),
  ttlMs: z.number().nullable().optional(),
  /** `completed`: what the original request would have answered. */
  result: z.record(z.string(), z.unknown()).optional(),
  /** `failed`: the JSON-RPC error. */
  error: JSON_RPC_ERROR.optional(),
  /** `input_required`: the requests to answer with `tasks/update`. */
  inputRequests: z.record(z.string(), z.unknown()).optional(),
});

/** The 2026-07-28 `CreateTaskResult` of a `tools/call` (`resultType: "task"`). */
export const MODERN_CREATE_TASK_RESULT = MODERN_TASK.extend({ resultType: z.literal('task') });

/** An empty acknowledgement (`tasks/update`, `tasks/cancel`): anything the server adds is ignored. */
export const TASK_ACK = z.looseObject({});

/** A task in the shape this client follows, whatever the era. */
export interface TaskSnapshot {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  /** The server's suggested poll interval in ms (2025 `pollInterval`, 2026 `pollIntervalMs`). */
  pollIntervalMs?: number;
  /** 2026-07-28, `completed`: the tool's result. */
  result?: Record<string, unknown>;
  /** 2026-07-28, `failed`: the JSON-RPC error. */
  error?: { code: number; message: string };
  /** 2026-07-28, `input_required`: the requests to answer. */
  inputRequests?: Record<string, unknown>;
}

/** A 2025-11-25 `Task` as a {@link TaskSnapshot}. */
export function fromLegacyTask(task: z.infer<typeof LEGACY_TASK>): TaskSnapshot {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
    ...(task.pollInterval === undefined ? {} : { pollIntervalMs: task.pollInterval }),
  };
}

/** A 2026-07-28 task as a {@link TaskSnapshot}. */
export function fromModernTask(task: z.infer<typeof MODERN_TASK>): TaskSnapshot {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
    ...(task.pollIntervalMs === undefined ? {} : { pollIntervalMs: task.pollIntervalMs }),
    ...(task.result === undefined ? {} : { result: task.result }),
    ...(task.error === undefined
      ? {}
      : { error: { code: task.error.code, message: task.error.message } }),
    ...(task.inputRequests === undefined ? {} : { inputRequests: task.inputRequests }),
  };
}

/**
 * The task a `tools/call` result announces, if it is one: a 2025-11-25 `CreateTaskResult`
 * (`{task}`) or a 2026-07-28 `resultType: "task"`. `undefined` for any other result.
 */
export function createdTask(result: unknown): TaskSnapshot | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  if ((result as { resultType?: unknown }).resultType === 'task') {
    const parsed = MODERN_CREATE_TASK_RESULT.safeParse(result);
    return parsed.success ? fromModernTask(parsed.data) : undefined;
  }
  if ('task' in result && !('content' in result)) {
    const parsed = LEGACY_CREATE_TASK_RESULT.safeParse(result);
    return parsed.success ? fromLegacyTask(parsed.data.task) : undefined;
  }
  return undefined;
}
