import { describe, expect, it } from 'vitest';
import { SecretScrubber } from './secret-scrubber.ts';

describe('SecretScrubber', () => {
  it('replaces whole values and the credential after an authorization scheme', () => {
    const scrubber = new SecretScrubber();
    scrubber.add('Bearer abcdefgh12345');
    scrubber.add('short'); // under 8 characters: ordinary text, not a secret
    expect(scrubber.scrub('got "Bearer abcdefgh12345" and abcdefgh12345, short')).toBe(
      'got "[redacted]" and [redacted], short',
    );
  });

  it('scrubs every string deep in a value and keeps untouched objects as they are', () => {
    const scrubber = new SecretScrubber();
    const untouched = { text: 'nothing here', list: [1, 'two'] };
    expect(scrubber.scrubDeep(untouched)).toBe(untouched);
    scrubber.add('top-secret-value');
    expect(scrubber.scrubDeep(untouched)).toBe(untouched);
    expect(
      scrubber.scrubDeep({ a: ['x top-secret-value y'], b: { 'top-secret-value': 1 } }),
    ).toEqual({ a: ['x [redacted] y'], b: { '[redacted]': 1 } });
  });
});
