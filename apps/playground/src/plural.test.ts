import { describe, expect, it } from 'vitest';
import { plural } from './plural.ts';

describe('plural', () => {
  it('uses the singular for exactly one', () => {
    expect(plural(1, 'tool')).toBe('1 tool');
    expect(plural(0, 'tool')).toBe('0 tools');
    expect(plural(12, 'tool')).toBe('12 tools');
    expect(plural(2, 'reply', 'replies')).toBe('2 replies');
  });
});
