import { describe, expect, it, vi } from 'vitest';
import { Store } from './store.ts';

class Counter extends Store<{ count: number }> {
  started = 0;
  stopped = 0;
  constructor() {
    super({ count: 0 });
  }
  increment(): void {
    this.set((previous) => ({ count: previous.count + 1 }));
  }
  replace(snapshot: { count: number }): void {
    this.set(snapshot);
  }
  protected override onFirstSubscribe(): void {
    this.started += 1;
  }
  protected override onLastUnsubscribe(): void {
    this.stopped += 1;
  }
}

describe('Store', () => {
  it('keeps subscribe and getSnapshot bound, so they can be passed as values', () => {
    const store = new Counter();
    const { subscribe, getSnapshot } = store;
    const listener = vi.fn();
    const unsubscribe = subscribe(listener);
    store.increment();
    expect(listener).toHaveBeenCalledTimes(1);
    expect(getSnapshot()).toEqual({ count: 1 });
    unsubscribe();
  });

  it('returns the same snapshot object until the state changes', () => {
    const store = new Counter();
    const first = store.getSnapshot();
    expect(store.getSnapshot()).toBe(first);
    store.increment();
    expect(store.getSnapshot()).not.toBe(first);
  });

  it('does not notify when the new snapshot is the current one', () => {
    const store = new Counter();
    const listener = vi.fn();
    store.subscribe(listener);
    store.replace(store.getSnapshot());
    expect(listener).not.toHaveBeenCalled();
  });

  it('lets a listener unsubscribe another while being notified, and still notifies the copy', () => {
    const store = new Counter();
    const calls: string[] = [];
    let unsubscribeB = (): void => {};
    store.subscribe(() => {
      calls.push('a');
      unsubscribeB();
    });
    unsubscribeB = store.subscribe(() => calls.push('b'));
    store.increment();
    store.increment();
    expect(calls).toEqual(['a', 'b', 'a']);
  });

  it('runs the other listeners when one throws, and reports the error', () => {
    const store = new Counter();
    const reported: unknown[] = [];
    const original = (globalThis as { reportError?: unknown }).reportError;
    (globalThis as { reportError?: unknown }).reportError = (error: unknown) =>
      reported.push(error);
    try {
      const broken = new Error('listener bug');
      store.subscribe(() => {
        throw broken;
      });
      const after = vi.fn();
      store.subscribe(after);
      expect(() => store.increment()).not.toThrow();
      expect(after).toHaveBeenCalledTimes(1);
      expect(reported).toEqual([broken]);
    } finally {
      (globalThis as { reportError?: unknown }).reportError = original;
    }
  });

  it('starts on the first subscriber and stops after the last, once each', () => {
    const store = new Counter();
    const a = store.subscribe(() => {});
    const b = store.subscribe(() => {});
    expect(store.started).toBe(1);
    a();
    a();
    expect(store.stopped).toBe(0);
    b();
    expect(store.stopped).toBe(1);
    store.subscribe(() => {});
    expect(store.started).toBe(2);
  });
});
