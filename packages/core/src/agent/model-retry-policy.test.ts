import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import {
  DEFAULT_MODEL_RETRY_POLICY,
  classifyModelFailure,
  decideAfterFailure,
  nextRetryDelay,
  resolveModelRetryPolicy,
  type ModelFailureClass,
} from './model-retry-policy.ts';

const policy = DEFAULT_MODEL_RETRY_POLICY;

describe('nextRetryDelay', () => {
  it.each([
    // retry, retryAfterMs, random, expected
    [1, undefined, 0, 1000],
    [2, undefined, 0, 2000],
    [3, undefined, 0, 4000],
    [1, undefined, 1, 500], // half of the wait taken off at most (jitter 0.5)
    [3, undefined, 0.5, 3000],
    [10, undefined, 0, 30_000], // capped at maxDelayMs
    [1, 3000, 1, 3000], // Retry-After honoured as it is, no jitter
    [1, 0, 0, 0],
    [1, 600_000, 0, 30_000], // a long Retry-After is capped
  ])('retry %i, Retry-After %s ms, random %s → %i ms', (retry, retryAfter, random, expected) => {
    expect(nextRetryDelay(retry, policy, retryAfter, random)).toBe(expected);
  });

  it('takes no jitter off with jitter 0', () => {
    expect(nextRetryDelay(2, { ...policy, jitter: 0 }, undefined, 0.9)).toBe(2000);
  });
});

describe('classifyModelFailure', () => {
  const modelError = (details?: ConstructorParameters<typeof SwitchboardError<'model_error'>>[2]) =>
    new SwitchboardError('model_error', 'x', details);
  it.each<[string, unknown, ModelFailureClass]>([
    [
      '429',
      modelError({ details: { status: 429, retryAfterMs: 3000 } }),
      { retryable: true, overloaded: false, status: 429, retryAfterMs: 3000 },
    ],
    [
      '408',
      modelError({ details: { status: 408 } }),
      { retryable: true, overloaded: false, status: 408 },
    ],
    [
      '500',
      modelError({ details: { status: 500 } }),
      { retryable: true, overloaded: false, status: 500 },
    ],
    [
      '503',
      modelError({ details: { status: 503 } }),
      { retryable: true, overloaded: false, status: 503 },
    ],
    [
      '529 overloaded',
      modelError({ details: { status: 529, overloaded: true } }),
      { retryable: true, overloaded: true, status: 529 },
    ],
    [
      '400',
      modelError({ details: { status: 400 } }),
      { retryable: false, overloaded: false, status: 400 },
    ],
    [
      '401',
      modelError({ details: { status: 401 } }),
      { retryable: false, overloaded: false, status: 401 },
    ],
    [
      '403',
      modelError({ details: { status: 403 } }),
      { retryable: false, overloaded: false, status: 403 },
    ],
    [
      '404',
      modelError({ details: { status: 404, overloaded: true } }),
      { retryable: false, overloaded: false, status: 404 },
    ],
    [
      'a connection reset',
      modelError({ details: { transient: true } }),
      { retryable: true, overloaded: false },
    ],
    [
      'an overloaded event mid-stream',
      modelError({ details: { transient: true, overloaded: true } }),
      { retryable: true, overloaded: true },
    ],
    ['a model_error without details', modelError(), { retryable: false, overloaded: false }],
    [
      'a request timeout',
      new SwitchboardError('timeout', 'slow', { details: { which: 'idle' } }),
      { retryable: true, overloaded: false },
    ],
    ['a stop', new SwitchboardError('aborted', 'stopped'), { retryable: false, overloaded: false }],
    [
      'a schema error',
      new SwitchboardError('invalid_input', 'bad schema', { details: { reason: 'schema' } }),
      { retryable: false, overloaded: false },
    ],
    ['a plain Error', new TypeError('bug'), { retryable: false, overloaded: false }],
  ])('%s', (_name, error, expected) => {
    expect(classifyModelFailure(error)).toEqual(expected);
  });
});

describe('decideAfterFailure', () => {
  const retryable: ModelFailureClass = { retryable: true, overloaded: false };
  const base = {
    failure: retryable,
    attempts: 1,
    hasFallback: false,
    outputStarted: false,
    elapsedMs: 0,
    random: 0,
  };
  it.each([
    ['a retryable failure retries with backoff', base, { action: 'retry', delayMs: 1000 }],
    ['the second retry waits longer', { ...base, attempts: 2 }, { action: 'retry', delayMs: 2000 }],
    ['attempts used up, no fallback: fail', { ...base, attempts: 3 }, { action: 'fail' }],
    [
      'attempts used up: fall back',
      { ...base, attempts: 3, hasFallback: true },
      { action: 'fallback' },
    ],
    [
      'output started: fail',
      { ...base, outputStarted: true, hasFallback: true },
      { action: 'fail' },
    ],
    [
      'not retryable: fail, even with a fallback',
      { ...base, failure: { retryable: false, overloaded: false, status: 401 }, hasFallback: true },
      { action: 'fail' },
    ],
    [
      'overloaded with a fallback: fall back at once',
      { ...base, failure: { retryable: true, overloaded: true }, hasFallback: true },
      { action: 'fallback' },
    ],
    [
      'overloaded without a fallback: retry',
      { ...base, failure: { retryable: true, overloaded: true } },
      { action: 'retry', delayMs: 1000 },
    ],
    [
      'Retry-After is the wait',
      { ...base, failure: { ...retryable, retryAfterMs: 3000 } },
      { action: 'retry', delayMs: 3000 },
    ],
    [
      'a wait past the total time limit: fall back',
      { ...base, elapsedMs: 119_500, hasFallback: true },
      { action: 'fallback' },
    ],
    ['a wait past the total time limit: fail', { ...base, elapsedMs: 119_500 }, { action: 'fail' }],
    [
      'the total time limit spent: fail',
      { ...base, elapsedMs: 120_000, hasFallback: true },
      { action: 'fail' },
    ],
  ])('%s', (_name, facts, expected) => {
    expect(decideAfterFailure(facts, policy)).toEqual(expected);
  });

  it('never retries with maxAttempts 1', () => {
    expect(decideAfterFailure(base, resolveModelRetryPolicy({ maxAttempts: 1 }))).toEqual({
      action: 'fail',
    });
  });
});

describe('resolveModelRetryPolicy', () => {
  it('applies the defaults under the given fields', () => {
    expect(resolveModelRetryPolicy({ maxAttempts: 5, jitter: 0 })).toEqual({
      ...DEFAULT_MODEL_RETRY_POLICY,
      maxAttempts: 5,
      jitter: 0,
    });
  });

  it('layers a run policy over the agent policy', () => {
    const agent = resolveModelRetryPolicy({ maxAttempts: 5, initialDelayMs: 10 });
    expect(resolveModelRetryPolicy({ maxAttempts: 2 }, agent)).toMatchObject({
      maxAttempts: 2,
      initialDelayMs: 10,
    });
  });

  it.each([
    [{ maxAttempts: 0 }, /maxAttempts/],
    [{ maxAttempts: 1.5 }, /maxAttempts/],
    [{ initialDelayMs: -1 }, /initialDelayMs/],
    [{ totalTimeoutMs: Number.POSITIVE_INFINITY }, /totalTimeoutMs/],
    [{ backoffFactor: 0.5 }, /backoffFactor/],
    [{ jitter: 2 }, /jitter/],
  ])('refuses %o', (input, message) => {
    expect(() => resolveModelRetryPolicy(input)).toThrow(message);
  });
});
