import type { HistoryStore } from '../history/history-store.ts';
import { TOOL_ERROR_TEXT, toolError } from '../tools/tool-errors.ts';
import type { ToolOutput } from '../vocabulary/items.ts';
import type { RunResult } from './run-result.ts';

/** How long `AppToolCallHandle.output` waits for an approval by default: 10 minutes. */
export const DEFAULT_APP_CALL_WAIT_MS = 10 * 60_000;

/** How often the thread is read while another client may answer the approval: 2 s. */
const POLL_MS = 2000;

/** What {@link appCallOutput} needs. */
export interface AppCallWait {
  history: HistoryStore;
  threadId: string;
  callId: string;
  /** Resolves when a run of the thread in this Agent ended (the usual place of the answer). */
  runEnded(): { promise: Promise<void>; dispose(): void };
  signal?: AbortSignal;
  timeoutMs?: number;
}

/**
 * The output of an app call once `first` (the run that recorded it) ended: from the run, or —
 * when it paused for approval — from the thread's history once somebody answered (read when a
 * run of this Agent on the thread ends, and every 2 s for an answer given in another tab).
 * Never rejects: a run that ended without the output, a time limit or an abort give an error
 * output saying so.
 */
export async function appCallOutput(first: RunResult, wait: AppCallWait): Promise<ToolOutput> {
  const direct = outputIn(first.output, wait.callId);
  if (direct !== undefined) return direct;
  if (first.status !== 'paused') {
    const error = first.error;
    return error === undefined
      ? toolError('cancelled', TOOL_ERROR_TEXT.cancelled)
      : toolError(error.code, error.message);
  }
  const deadline = Date.now() + (wait.timeoutMs ?? DEFAULT_APP_CALL_WAIT_MS);
  for (;;) {
    const woken = wait.runEnded();
    try {
      const items = await wait.history.loadItems(wait.threadId);
      const stored = outputIn(items, wait.callId);
      if (stored !== undefined) return stored;
      if (wait.signal?.aborted === true) {
        return toolError('aborted', 'The view stopped waiting for this call.');
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        return toolError(
          'timeout',
          'Nobody answered the approval in time; the call still waits in the thread.',
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(POLL_MS, left));
        const done = (): void => {
          clearTimeout(timer);
          wait.signal?.removeEventListener('abort', done);
          resolve();
        };
        wait.signal?.addEventListener('abort', done, { once: true });
        void woken.promise.then(done);
      });
    } finally {
      woken.dispose();
    }
  }
}

function outputIn(
  items: readonly { type: string; callId?: string; output?: ToolOutput }[],
  callId: string,
): ToolOutput | undefined {
  for (const item of items) {
    if (item.type === 'function_call_output' && item.callId === callId) return item.output;
  }
  return undefined;
}
