import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import type { Chunk } from '../agent/chunks.ts';
import { nextModelRetry, type ChatModelRetry } from './chat-model-retry.ts';

const base = { runId: 'r', sequence: 1 };
const retry: Chunk = {
  ...base,
  type: 'model.retry',
  model: 'openai-chat/a',
  attempt: 2,
  maxAttempts: 3,
  delayMs: 3000,
  reason: 'The model provider is rate limiting requests (HTTP 429).',
  code: 'model_error',
  status: 429,
};
const waiting: ChatModelRetry = {
  kind: 'retry',
  model: 'openai-chat/a',
  failedModel: 'openai-chat/a',
  attempt: 2,
  maxAttempts: 3,
  delayMs: 3000,
  retryAt: 13_000,
  reason: 'The model provider is rate limiting requests (HTTP 429).',
  code: 'model_error',
  status: 429,
};

describe('nextModelRetry', () => {
  it('sets the state from model.retry, due at its arrival plus the wait', () => {
    expect(nextModelRetry(undefined, retry, 10_000)).toEqual(waiting);
  });

  it('sets the state from model.fallback, due at once', () => {
    const fallback: Chunk = {
      ...base,
      type: 'model.fallback',
      from: 'openai-chat/a',
      to: 'anthropic/b',
      reason: 'Overloaded',
      code: 'model_error',
    };
    expect(nextModelRetry(waiting, fallback, 20_000)).toEqual({
      kind: 'fallback',
      model: 'anthropic/b',
      failedModel: 'openai-chat/a',
      attempt: 1,
      maxAttempts: 3,
      delayMs: 0,
      retryAt: 20_000,
      reason: 'Overloaded',
      code: 'model_error',
    });
  });

  it.each<Chunk>([
    { ...base, type: 'text.delta', delta: 'Hi' },
    { ...base, type: 'reasoning.delta', delta: 'Hm' },
    { ...base, type: 'tool.call', callId: 'c', toolName: 't', arguments: {} },
    { ...base, type: 'run.completed', usage: { inputTokens: 1, outputTokens: 1 }, output: [] },
    { ...base, type: 'run.failed', error: new SwitchboardError('model_error', 'x') },
    { ...base, type: 'run.cancelled' },
    { ...base, type: 'run.paused', interrupts: [] },
  ])('clears it at $type', (chunk) => {
    expect(nextModelRetry(waiting, chunk, 14_000)).toBeUndefined();
  });

  it('keeps the same object for other chunks', () => {
    const progress: Chunk = {
      ...base,
      type: 'tool.progress',
      callId: 'c',
      toolName: 't',
      progress: 1,
    };
    expect(nextModelRetry(waiting, progress, 14_000)).toBe(waiting);
    expect(nextModelRetry(undefined, progress, 14_000)).toBeUndefined();
  });
});
