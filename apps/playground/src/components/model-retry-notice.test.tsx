import type { ChatModelRetry } from '@switchboard/core';
import { describe, expect, it } from 'vitest';
import { describeModelRetry } from './model-retry-notice.tsx';

const retry: ChatModelRetry = {
  kind: 'retry',
  model: 'openai-chat/scripted',
  failedModel: 'openai-chat/scripted',
  attempt: 2,
  maxAttempts: 3,
  delayMs: 3000,
  retryAt: 10_000,
  reason: 'The model provider is rate limiting requests (HTTP 429).',
  code: 'model_error',
  status: 429,
};

describe('describeModelRetry', () => {
  it.each([
    [retry, 7_000, 'Rate limited — retrying in 3 s (attempt 2 of 3)…'],
    [retry, 9_200, 'Rate limited — retrying in 1 s (attempt 2 of 3)…'],
    [retry, 10_500, 'Rate limited — retrying now (attempt 2 of 3)…'],
    [
      { ...retry, status: 503 },
      9_000,
      'The model answered HTTP 503 — retrying in 1 s (attempt 2 of 3)…',
    ],
    [
      { ...retry, status: undefined },
      9_000,
      'The model call failed — retrying in 1 s (attempt 2 of 3)…',
    ],
    [
      {
        ...retry,
        kind: 'fallback' as const,
        model: 'anthropic/backup',
        reason: 'Overloaded.',
        status: 529,
      },
      9_000,
      'openai-chat/scripted failed (Overloaded.) — trying anthropic/backup…',
    ],
  ])('%#', (value, now, expected) => {
    const { status, ...rest } = value;
    const input: ChatModelRetry = status === undefined ? rest : { ...rest, status };
    expect(describeModelRetry(input, now)).toBe(expected);
  });
});
