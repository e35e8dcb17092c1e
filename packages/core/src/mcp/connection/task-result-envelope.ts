import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';

/**
 * The `_meta` key under which a task-creating `tools/call` result reaches our code (see
 * {@link carryTaskResults}).
 */
export const TASK_RESULT_META_KEY = 'dev.switchboard/createdTask';

/**
 * Lets a task-creating `tools/call` result through the SDK. SDK v2 (2.4.0) decodes every result
 * itself before a caller's schema sees it, and refuses both task shapes: a 2026-07-28
 * `resultType: "task"` is an `UnsupportedResultType` error (only `complete` and `input_required`
 * are decoded), and a 2025-11-25 `CreateTaskResult` (`{task}`, no `content`) fails its
 * `CallToolResult` check. So the session's transport hands the client such a result as an
 * empty `complete` result that carries the original under `_meta[TASK_RESULT_META_KEY]`, which
 * `mcp/call/task.ts` reads. Every other message passes unchanged.
 *
 * Call after `client.connect(transport)` (the SDK sets `onmessage` while connecting).
 */
export function carryTaskResults(transport: Transport): void {
  const deliver = transport.onmessage;
  if (deliver === undefined) return;
  transport.onmessage = (message, extra) => {
    deliver(envelopeTaskResult(message), extra);
  };
}

/** `message` with a task-creating result wrapped as described in {@link carryTaskResults}. */
export function envelopeTaskResult(message: JSONRPCMessage): JSONRPCMessage {
  if (!('result' in message) || typeof message.result !== 'object' || message.result === null) {
    return message;
  }
  const result = message.result as Record<string, unknown>;
  const isModernTask = result.resultType === 'task';
  const task = result.task;
  const isLegacyTask =
    !('content' in result) &&
    typeof task === 'object' &&
    task !== null &&
    typeof (task as { taskId?: unknown }).taskId === 'string';
  if (!isModernTask && !isLegacyTask) return message;
  return {
    ...message,
    result: {
      ...(isModernTask ? { resultType: 'complete' } : {}),
      content: [],
      _meta: { [TASK_RESULT_META_KEY]: result },
    },
  } as JSONRPCMessage;
}
