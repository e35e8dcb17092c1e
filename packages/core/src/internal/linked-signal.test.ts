import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { linkSignals, whenAborted } from './linked-signal.ts';

describe('linkSignals', () => {
  it('aborts with the parent reason and leaves no listener behind, however it ends', () => {
    const parent = new AbortController();
    const other = new AbortController();
    for (let index = 0; index < 10_000; index++) {
      const link = linkSignals(parent.signal, undefined, other.signal);
      if (index % 2 === 0) link.dispose();
      else link.abort(new Error('own'));
    }
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(other.signal, 'abort')).toHaveLength(0);

    const link = linkSignals(parent.signal, other.signal);
    const reason = new Error('parent stopped');
    other.abort(reason);
    expect(link.signal.aborted).toBe(true);
    expect(link.signal.reason).toBe(reason);
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
  });

  it('is aborted at once when a parent already is', () => {
    const parent = new AbortController();
    parent.abort('gone');
    const link = linkSignals(parent.signal);
    expect(link.signal.aborted).toBe(true);
    expect(link.signal.reason).toBe('gone');
  });
});

describe('whenAborted', () => {
  it('resolves on abort, and dispose removes its listener', async () => {
    const parent = new AbortController();
    for (let index = 0; index < 1_000; index++) whenAborted(parent.signal).dispose();
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
    const waiting = whenAborted(parent.signal);
    parent.abort();
    await expect(waiting.promise).resolves.toBeUndefined();
  });
});
