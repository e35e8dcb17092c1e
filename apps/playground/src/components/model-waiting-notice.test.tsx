import type { ChatModelWaiting } from '@switchboard/core';
import { describe, expect, it } from 'vitest';
import { describeModelWaiting } from './model-waiting-notice.tsx';

const waiting: ChatModelWaiting = {
  model: 'openai-chat/scripted',
  host: '127.0.0.1:4000',
  since: 10_000,
};

describe('describeModelWaiting', () => {
  it.each([
    [
      14_000,
      'Waiting for a free connection to 127.0.0.1:4000 — other tabs may be holding them (4 s)…',
    ],
    [
      25_900,
      'Waiting for a free connection to 127.0.0.1:4000 — other tabs may be holding them (15 s)…',
    ],
    // A clock behind `since` never shows a negative wait.
    [
      9_000,
      'Waiting for a free connection to 127.0.0.1:4000 — other tabs may be holding them (0 s)…',
    ],
  ])('at %i ms: %s', (now, text) => {
    expect(describeModelWaiting(waiting, now)).toBe(text);
  });
});
