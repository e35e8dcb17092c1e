import { messageOf } from '../errors/message-of.ts';
import { SwitchboardError, isSwitchboardError } from '../errors/switchboard-error.ts';
import type { ModelFailureRecord } from '../history/history-store.ts';
import type { Model } from '../model/model.ts';
import type { SwitchboardErrorCode } from '../vocabulary/error-codes.ts';
import {
  classifyModelFailure,
  decideAfterFailure,
  type ResolvedModelRetryPolicy,
} from './model-retry-policy.ts';

/** Tells an attempt's caller whether the model produced output before it failed. */
export interface AttemptOutput {
  /** Set by the attempt at the model's first text, reasoning or tool call. */
  started: boolean;
}

/** A retry or fallback about to happen, for the run's chunks and row. */
export type ModelFailureNote = ModelFailureRecord & {
  maxAttempts: number;
  code: SwitchboardErrorCode;
};

/** What {@link callModelWithRetries} needs. */
export interface ModelRetriesOptions<T> {
  /** The model first tried, then the fallbacks in order. */
  models: readonly Model[];
  /** Index in `models` to start at (a fallback that served an earlier turn). */
  start: number;
  policy: ResolvedModelRetryPolicy;
  /** Stops the call, and a wait at once. */
  signal: AbortSignal;
  /** One attempt on `model`; sets `output.started` once the model produced anything. */
  attempt(model: Model, output: AttemptOutput): Promise<T>;
  /** Called before each wait and each switch to the next model. */
  onFailure(note: ModelFailureNote): void;
  /** Default `Date.now`. */
  now?: () => number;
  /** Default `Math.random`. */
  random?: () => number;
}

/** The model's name in chunks and rows: `provider/modelId`. */
export function modelName(model: Model): string {
  return `${model.provider}/${model.modelId}`;
}

/**
 * Makes one model call by `policy` (see `ModelRetryPolicy`): retries a failed attempt on the same
 * model after the decided wait, or moves on to the next model, and rethrows the failure that
 * ends it. Returns the answer and the index of the model that gave it.
 *
 * @throws the last attempt's error; `aborted` when `signal` aborts during a wait.
 */
export async function callModelWithRetries<T>(
  options: ModelRetriesOptions<T>,
): Promise<{ value: T; modelIndex: number }> {
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const startedAt = now();
  let index = options.start;
  let attempts = 0;
  for (;;) {
    const model = options.models[index];
    if (model === undefined) throw new SwitchboardError('model_error', 'No model to call.');
    attempts += 1;
    const output: AttemptOutput = { started: false };
    try {
      return { value: await options.attempt(model, output), modelIndex: index };
    } catch (error) {
      if (options.signal.aborted) throw error;
      const failure = classifyModelFailure(error);
      const next = options.models[index + 1];
      const decision = decideAfterFailure(
        {
          failure,
          attempts,
          hasFallback: next !== undefined,
          outputStarted: output.started,
          elapsedMs: now() - startedAt,
          random: random(),
        },
        options.policy,
      );
      // Only our own failure classes are ever retryable, so `error` is a SwitchboardError here.
      if (decision.action === 'fail' || !isSwitchboardError(error)) throw error;
      if (decision.action === 'fallback' && next === undefined) throw error;
      options.onFailure({
        model: modelName(model),
        attempt: attempts,
        maxAttempts: options.policy.maxAttempts,
        code: error.code,
        ...(failure.status === undefined ? {} : { status: failure.status }),
        message: messageOf(error),
        then:
          decision.action === 'retry'
            ? { action: 'retry', delayMs: decision.delayMs }
            : { action: 'fallback', to: modelName(next as Model) },
        at: now(),
      });
      if (decision.action === 'retry') {
        await waitUnlessAborted(decision.delayMs, options.signal);
      } else {
        index += 1;
        attempts = 0;
      }
    }
  }
}

/**
 * Resolves after `milliseconds`; rejects with `aborted` as soon as `signal` aborts, so a stop
 * during a retry's wait ends the run at once.
 */
function waitUnlessAborted(milliseconds: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const stop = (): void => {
      clearTimeout(timer);
      reject(new SwitchboardError('aborted', 'The run was stopped.'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, milliseconds);
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
  });
}
