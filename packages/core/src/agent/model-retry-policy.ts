import { SwitchboardError, isSwitchboardError } from '../errors/switchboard-error.ts';

/**
 * How an `Agent` retries a failed model call (`AgentOptions.modelRetry`, overridable per run in
 * `ExecuteInput.modelRetry`). All times in ms. A call is retried only when it failed before the
 * model produced any output (text, reasoning or a tool call) and before any tool of the turn ran;
 * the wait is the provider's `Retry-After` when it sent one (capped at `maxDelayMs`), otherwise
 * exponential backoff with jitter: `min(maxDelayMs, initialDelayMs × backoffFactor^(n−1))`, of
 * which up to `jitter` (a fraction) is taken off at random, for the n-th retry.
 *
 * Retried: HTTP 408, 409, 429 and 5xx (529 overloaded included), a time limit of the request
 * (`timeout`), and transport failures (connection refused or reset, a stream cut before its
 * final event, an error event in the stream). Never retried: any other HTTP status (400, 401,
 * 403, 404, 422, …), a schema error, a stop, or a failure of a custom `Model` that says nothing
 * of its cause (a `model_error` without `details`).
 */
export interface ModelRetryPolicy {
  /** Attempts per model, the first included; 1 turns retries off. Default 3. */
  maxAttempts?: number;
  /** The wait before the first retry, in ms. Default 1000. */
  initialDelayMs?: number;
  /** What each further wait is multiplied by. Default 2. */
  backoffFactor?: number;
  /** The longest single wait, in ms; a longer `Retry-After` is cut to it. Default 30 000. */
  maxDelayMs?: number;
  /** The fraction (0–1) of each backoff wait taken off at random (0 = none). Default 0.5. */
  jitter?: number;
  /**
   * The time limit of one model call with all its retries and fallbacks, in ms, counted from its
   * first attempt: no retry starts after it, nor a wait that would end after it. Default 120 000.
   */
  totalTimeoutMs?: number;
}

/** A {@link ModelRetryPolicy} with every default applied. */
export type ResolvedModelRetryPolicy = Required<ModelRetryPolicy>;

/** The defaults of {@link ModelRetryPolicy}. */
export const DEFAULT_MODEL_RETRY_POLICY: Readonly<ResolvedModelRetryPolicy> = {
  maxAttempts: 3,
  initialDelayMs: 1000,
  backoffFactor: 2,
  maxDelayMs: 30_000,
  jitter: 0.5,
  totalTimeoutMs: 120_000,
};

/**
 * `policy` over the defaults, checked.
 *
 * @throws SwitchboardError `invalid_input` when `maxAttempts` is not an integer ≥ 1, a time is
 *   negative or not finite, `backoffFactor` is below 1, or `jitter` is outside 0–1.
 */
export function resolveModelRetryPolicy(
  policy: ModelRetryPolicy | undefined,
  base: Readonly<ResolvedModelRetryPolicy> = DEFAULT_MODEL_RETRY_POLICY,
): ResolvedModelRetryPolicy {
  const resolved: ResolvedModelRetryPolicy = { ...base };
  for (const [key, value] of Object.entries(policy ?? {}) as [keyof ModelRetryPolicy, unknown][]) {
    if (value !== undefined) resolved[key] = value as number;
  }
  const invalid = (reason: string): SwitchboardError =>
    new SwitchboardError('invalid_input', `Invalid modelRetry: ${reason}.`, {
      details: { reason: 'invalid_model_retry' },
    });
  if (!Number.isInteger(resolved.maxAttempts) || resolved.maxAttempts < 1) {
    throw invalid('maxAttempts must be an integer of at least 1');
  }
  for (const key of ['initialDelayMs', 'maxDelayMs', 'totalTimeoutMs'] as const) {
    if (!Number.isFinite(resolved[key]) || resolved[key] < 0) {
      throw invalid(`${key} must be a finite number of ms, not negative`);
    }
  }
  if (!Number.isFinite(resolved.backoffFactor) || resolved.backoffFactor < 1) {
    throw invalid('backoffFactor must be at least 1');
  }
  if (!(resolved.jitter >= 0 && resolved.jitter <= 1)) {
    throw invalid('jitter must be between 0 and 1');
  }
  return resolved;
}

/** What a failure of a model call allows. */
export interface ModelFailureClass {
  /** Trying the same call again may succeed. */
  retryable: boolean;
  /** The provider said it is overloaded or the model unavailable: try a fallback model at once. */
  overloaded: boolean;
  /** The HTTP status of the failure, when it was an error answer. */
  status?: number;
  /** The wait the provider asked for, in ms, when it said. */
  retryAfterMs?: number;
}

const RETRYABLE_STATUSES = new Set([408, 409, 429]);

/** Reads what a model call's failure allows (see {@link ModelRetryPolicy} for the rules). */
export function classifyModelFailure(error: unknown): ModelFailureClass {
  if (isSwitchboardError(error, 'timeout')) return { retryable: true, overloaded: false };
  if (!isSwitchboardError(error, 'model_error')) return { retryable: false, overloaded: false };
  const details = error.details ?? {};
  const status = details.status;
  const overloaded = details.overloaded === true;
  const retryable =
    status === undefined
      ? details.transient === true || overloaded
      : RETRYABLE_STATUSES.has(status) || status >= 500;
  return {
    retryable,
    overloaded: retryable && overloaded,
    ...(status === undefined ? {} : { status }),
    ...(details.retryAfterMs === undefined ? {} : { retryAfterMs: details.retryAfterMs }),
  };
}

/**
 * The wait before retry number `retry` (1 for the first), in ms: the provider's `retryAfterMs`
 * when given, else the exponential backoff with `random` (0–1) of `jitter` taken off; both at
 * most `maxDelayMs`. Pure: the caller passes `Math.random()`.
 */
export function nextRetryDelay(
  retry: number,
  policy: Pick<
    ResolvedModelRetryPolicy,
    'initialDelayMs' | 'backoffFactor' | 'maxDelayMs' | 'jitter'
  >,
  retryAfterMs: number | undefined,
  random: number,
): number {
  if (retryAfterMs !== undefined) return Math.min(policy.maxDelayMs, Math.max(0, retryAfterMs));
  const backoff = Math.min(
    policy.maxDelayMs,
    policy.initialDelayMs * policy.backoffFactor ** Math.max(0, retry - 1),
  );
  return Math.round(backoff * (1 - policy.jitter * random));
}

/** What to do after a failed attempt (see {@link decideAfterFailure}). */
export type ModelRetryDecision =
  { action: 'retry'; delayMs: number } | { action: 'fallback' } | { action: 'fail' };

/** The facts {@link decideAfterFailure} decides on. */
export interface ModelFailureFacts {
  failure: ModelFailureClass;
  /** Attempts made on the current model so far (1 after the first failed). */
  attempts: number;
  /** True when another model is left to fall back to. */
  hasFallback: boolean;
  /** True when the model already produced output (text, reasoning or a tool call). */
  outputStarted: boolean;
  /** Time since the call's first attempt started, in ms. */
  elapsedMs: number;
  /** A number in 0–1 for the jitter. */
  random: number;
}

/**
 * Retry the same model, fall back to the next, or fail: fail once output started (a retry would
 * show a second, different answer after the first one's start) or for a failure that is not
 * retryable; fall back at once when the provider is overloaded; retry while attempts and the
 * total time limit allow (the wait must end within it), then fall back; fail when the total
 * time limit is spent or no model is left.
 */
export function decideAfterFailure(
  facts: ModelFailureFacts,
  policy: ResolvedModelRetryPolicy,
): ModelRetryDecision {
  const { failure } = facts;
  if (facts.outputStarted || !failure.retryable) return { action: 'fail' };
  if (facts.elapsedMs >= policy.totalTimeoutMs) return { action: 'fail' };
  if (failure.overloaded && facts.hasFallback) return { action: 'fallback' };
  if (facts.attempts < policy.maxAttempts) {
    const delayMs = nextRetryDelay(facts.attempts, policy, failure.retryAfterMs, facts.random);
    if (facts.elapsedMs + delayMs < policy.totalTimeoutMs) return { action: 'retry', delayMs };
  }
  return facts.hasFallback ? { action: 'fallback' } : { action: 'fail' };
}
