import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { linkSignals, whenAborted } from './linked-signal.ts';

describe('linkSignals', () => {
  it('aborts with the parent reason and leaves no listener behind, however it ends', () => {
    const parent = new AbortController();
    const other = new AbortController();
    for (let index = 0; index < 1_000; index++) {
      const link = linkSignals(parent.signal, undefined, other.signal);
      if (index % 2 === 0) link.dispose();
      else link.abort('own');
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

describe('linkSignals with many links in flight', () => {
  it('puts one listener on a shared parent, however many links are live', () => {
    const parent = new AbortController();
    const links = Array.from({ length: 500 }, () => linkSignals(parent.signal));
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(1);
    for (const link of links.slice(0, 499)) link.dispose();
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(1);
    links[499]?.dispose();
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);

    const live = Array.from({ length: 20 }, () => linkSignals(parent.signal));
    parent.abort('stop');
    expect(live.every((link) => link.signal.aborted && link.signal.reason === 'stop')).toBe(true);
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
  });
});
