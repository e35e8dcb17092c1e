import { describe, expect, it } from 'vitest';
import { retryAfterMs } from './retry-after.ts';

const NOW = Date.parse('2026-12-02T03:00:00Z');

describe('retryAfterMs', () => {
  it.each([
    ['no headers', undefined, undefined],
    ['neither header', {}, undefined],
    ['delta-seconds', { 'retry-after': '3' }, 3000],
    ['fractional seconds', { 'retry-after': '0.25' }, 250],
    ['an HTTP date 5 s ahead', { 'retry-after': 'Wed, 02 Dec 2026 03:00:05 GMT' }, 5000],
    ['an HTTP date in the past', { 'retry-after': 'Wed, 02 Dec 2026 02:59:00 GMT' }, 0],
    ['retry-after-ms before Retry-After', { 'retry-after-ms': '1500', 'retry-after': '9' }, 1500],
    [
      'an unreadable retry-after-ms falls back',
      { 'retry-after-ms': 'soon', 'retry-after': '2' },
      2000,
    ],
    ['a negative number', { 'retry-after': '-1' }, undefined],
    ['garbage', { 'retry-after': 'later please' }, undefined],
  ])('%s', (_name, headers: Record<string, string> | undefined, expected) => {
    const lookup = headers === undefined ? undefined : new Headers(headers);
    expect(retryAfterMs(lookup, NOW)).toBe(expected);
  });
});
