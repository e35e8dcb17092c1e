import type { McpRequestWaiting } from '@switchboard/core';
import { describe, expect, it } from 'vitest';
import { describeMcpWaiting } from './mcp-waiting-notice.tsx';

const waiting: McpRequestWaiting = {
  method: 'tools/call',
  callId: 'call_1',
  host: '127.0.0.1:3003',
  since: 10_000,
};

const text = (seconds: number) =>
  `Waiting for the browser to send the request to 127.0.0.1:3003 — other tabs may be holding this server's connections (${seconds} s)…`;

describe('describeMcpWaiting', () => {
  it.each([
    [14_000, text(4)],
    [25_900, text(15)],
    // A clock behind `since` never shows a negative wait.
    [9_000, text(0)],
  ])('at %i ms: %s', (now, expected) => {
    expect(describeMcpWaiting(waiting, now)).toBe(expected);
  });
});
