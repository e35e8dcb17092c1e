import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isSwitchboardError } from '../errors/switchboard-error.ts';
import { CallTimer } from './call-timer.ts';

describe('CallTimer (fake clock)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function timeoutOf(signal: AbortSignal): unknown {
    expect(signal.aborted).toBe(true);
    const reason: unknown = signal.reason;
    expect(isSwitchboardError(reason, 'timeout')).toBe(true);
    return (reason as { details?: unknown }).details;
  }

  it('aborts with an idle timeout when no progress comes', () => {
    const timer = new CallTimer(1_000, 60_000, new AbortController().signal);
    vi.advanceTimersByTime(999);
    expect(timer.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(timeoutOf(timer.signal)).toEqual({ which: 'idle' });
  });

  it('restarts the idle timeout on every progress report', () => {
    const timer = new CallTimer(1_000, 60_000, new AbortController().signal);
    for (let i = 0; i < 10; i++) {
      vi.advanceTimersByTime(900);
      timer.touch();
    }
    expect(timer.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1_000);
    expect(timeoutOf(timer.signal)).toEqual({ which: 'idle' });
  });

  it('caps the whole call even while progress keeps coming', () => {
    const timer = new CallTimer(1_000, 5_000, new AbortController().signal);
    for (let i = 0; i < 5; i++) {
      vi.advanceTimersByTime(999);
      timer.touch();
    }
    expect(timer.signal.aborted).toBe(false);
    vi.advanceTimersByTime(5);
    expect(timeoutOf(timer.signal)).toEqual({ which: 'total' });
  });

  it("does not count a human's time: both clocks stop while paused", () => {
    const timer = new CallTimer(1_000, 3_000, new AbortController().signal);
    vi.advanceTimersByTime(800);
    timer.pause();
    timer.pause();
    vi.advanceTimersByTime(3_600_000);
    timer.resume();
    expect(timer.signal.aborted).toBe(false);
    timer.resume();
    // Idle starts from zero; the total has 2 200 ms left.
    vi.advanceTimersByTime(999);
    timer.touch();
    vi.advanceTimersByTime(999);
    timer.touch();
    expect(timer.signal.aborted).toBe(false);
    vi.advanceTimersByTime(202);
    expect(timeoutOf(timer.signal)).toEqual({ which: 'total' });
  });

  it('follows the outer signal, and stops for good once disposed', () => {
    const outer = new AbortController();
    const timer = new CallTimer(1_000, 5_000, outer.signal);
    outer.abort(new Error('run stopped'));
    expect(timer.signal.aborted).toBe(true);

    const settled = new CallTimer(1_000, 5_000, new AbortController().signal);
    settled.dispose();
    vi.advanceTimersByTime(10_000);
    expect(settled.signal.aborted).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });
});
