import type { Chunk } from '../agent/chunks.ts';
import type { SwitchboardErrorCode } from '../vocabulary/error-codes.ts';

/**
 * The streaming run's model call is being tried again (`ChatSnapshot.modelRetry`): after a
 * `model.retry` chunk the same model after a wait, after a `model.fallback` chunk the next
 * model. Lets a UI say "Rate limited, retrying in 3 s (attempt 2 of 3)". Cleared at the model's
 * first output and when the run ends.
 */
export interface ChatModelRetry {
  /** `retry`: the same model again after `delayMs`; `fallback`: the next model, at once. */
  kind: 'retry' | 'fallback';
  /** The model tried next, as `provider/modelId`. */
  model: string;
  /** The model that failed (for a retry, `model` itself). */
  failedModel: string;
  /** The attempt tried next on `model`: 2 for the first retry, 1 after a fallback. */
  attempt: number;
  /** The attempts the policy allows on `model`. */
  maxAttempts: number;
  /** The wait before that attempt, in ms (0 for a fallback). */
  delayMs: number;
  /** When that attempt starts, in ms since the epoch (the chunk's arrival plus `delayMs`). */
  retryAt: number;
  /** The failure's message, code and HTTP status (when there was one). */
  reason: string;
  code: SwitchboardErrorCode;
  status?: number;
}

/**
 * The retry state after `chunk` (pure; `now` is when the chunk arrived, in ms since the
 * epoch): set by `model.retry` / `model.fallback`, cleared by the model's output (text,
 * reasoning, a tool call) and by the run's end, kept otherwise (the same object).
 */
export function nextModelRetry(
  previous: ChatModelRetry | undefined,
  chunk: Chunk,
  now: number,
): ChatModelRetry | undefined {
  switch (chunk.type) {
    case 'model.retry':
      return {
        kind: 'retry',
        model: chunk.model,
        failedModel: chunk.model,
        attempt: chunk.attempt,
        maxAttempts: chunk.maxAttempts,
        delayMs: chunk.delayMs,
        retryAt: now + chunk.delayMs,
        reason: chunk.reason,
        code: chunk.code,
        ...(chunk.status === undefined ? {} : { status: chunk.status }),
      };
    case 'model.fallback':
      return {
        kind: 'fallback',
        model: chunk.to,
        failedModel: chunk.from,
        attempt: 1,
        maxAttempts: previous?.maxAttempts ?? 1,
        delayMs: 0,
        retryAt: now,
        reason: chunk.reason,
        code: chunk.code,
        ...(chunk.status === undefined ? {} : { status: chunk.status }),
      };
    case 'text.delta':
    case 'reasoning.delta':
    case 'tool.call':
    case 'run.completed':
    case 'run.paused':
    case 'run.failed':
    case 'run.cancelled':
      return undefined;
    default:
      return previous;
  }
}
