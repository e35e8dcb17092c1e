// @vitest-environment node
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  frameBatchedStore,
  scheduleAnimationFrame,
  type ExternalStore,
} from './frame-batched-store.ts';

interface State {
  status: string;
  count: number;
}

/** A minimal store: `set` replaces the snapshot and notifies. */
function source(initial: State) {
  let snapshot = initial;
  const listeners = new Set<() => void>();
  const store: ExternalStore<State> & {
    set(next: Partial<State>): void;
    listeners: Set<() => void>;
  } = {
    listeners,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    getSnapshot: () => snapshot,
    set(next) {
      snapshot = { ...snapshot, ...next };
      for (const listener of listeners) listener();
    },
  };
  return store;
}

/** A manual scheduler: `frame()` runs what was scheduled. */
function manualFrames() {
  let pending: (() => void) | undefined;
  let scheduled = 0;
  return {
    schedule(flush: () => void) {
      scheduled += 1;
      pending = flush;
      return () => {
        if (pending === flush) pending = undefined;
      };
    },
    frame() {
      const run = pending;
      pending = undefined;
      run?.();
    },
    get scheduled() {
      return scheduled;
    },
  };
}

const statusChanged = (previous: State, next: State) => previous.status !== next.status;

/** A manual clock and "next task after the render": `renderTakes(ms)` ends the measured render. */
function manualRenders() {
  let time = 0;
  let pending: (() => void) | undefined;
  return {
    now: () => time,
    afterRender(measured: () => void) {
      pending = measured;
      return () => {
        if (pending === measured) pending = undefined;
      };
    },
    /** The render started at the last publish took `ms`; the measuring task runs. */
    renderTakes(ms: number) {
      time += ms;
      const run = pending;
      pending = undefined;
      run?.();
    },
    advance(ms: number) {
      time += ms;
    },
    get measuring() {
      return pending !== undefined;
    },
  };
}

/** A streaming store behind a render-budgeted `frameBatchedStore` (share ½) on manual clocks. */
function budgetedStore() {
  const store = source({ status: 'streaming', count: 0 });
  const frames = manualFrames();
  const renders = manualRenders();
  const batched = frameBatchedStore(store, {
    isUrgent: statusChanged,
    schedule: frames.schedule,
    afterRender: renders.afterRender,
    now: renders.now,
    renderShare: 0.5,
  });
  return { store, frames, renders, batched };
}

/**
 * A streaming source behind a frame-batched store on manual frames (status changes urgent, no
 * render-time throttle), subscribed: `notified` collects the count of each publish.
 */
function streamingStoreOnFrames() {
  const store = source({ status: 'streaming', count: 0 });
  const frames = manualFrames();
  const batched = frameBatchedStore(store, {
    isUrgent: statusChanged,
    schedule: frames.schedule,
    renderShare: 1,
  });
  const notified: number[] = [];
  batched.subscribe(() => notified.push(batched.getSnapshot().count));
  return { store, frames, batched, notified };
}

describe('frameBatchedStore', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('publishes many changes once per frame and keeps the published snapshot until then', () => {
    const { store, frames, batched, notified } = streamingStoreOnFrames();

    for (let index = 1; index <= 50; index += 1) store.set({ count: index });
    expect(notified).toEqual([]);
    expect(batched.getSnapshot().count).toBe(0);
    expect(frames.scheduled).toBe(1);

    frames.frame();
    expect(notified).toEqual([50]);
    for (let index = 51; index <= 60; index += 1) store.set({ count: index });
    frames.frame();
    expect(notified).toEqual([50, 60]);
    expect(frames.scheduled).toBe(2);
  });

  it('publishes urgent changes at once, with everything pending, and cancels the frame', () => {
    const store = source({ status: 'streaming', count: 0 });
    const frames = manualFrames();
    const batched = frameBatchedStore(store, {
      isUrgent: statusChanged,
      schedule: frames.schedule,
    });
    const notified: State[] = [];
    batched.subscribe(() => notified.push(batched.getSnapshot()));

    store.set({ count: 1 });
    store.set({ count: 2 });
    store.set({ status: 'idle' });
    expect(notified).toEqual([{ status: 'idle', count: 2 }]);
    frames.frame();
    expect(notified).toHaveLength(1);
  });

  it('passes the source through while unsubscribed and unsubscribes from it when the last listener leaves', () => {
    const store = source({ status: 'idle', count: 0 });
    const frames = manualFrames();
    const batched = frameBatchedStore(store, { schedule: frames.schedule });
    store.set({ count: 5 });
    expect(batched.getSnapshot().count).toBe(5);
    const unsubscribe = batched.subscribe(() => undefined);
    expect(store.listeners.size).toBe(1);
    unsubscribe();
    expect(store.listeners.size).toBe(0);
  });

  it('uses requestAnimationFrame when present', () => {
    const callbacks: FrameRequestCallback[] = [];
    vi.stubGlobal('requestAnimationFrame', (callback: FrameRequestCallback) =>
      callbacks.push(callback),
    );
    vi.stubGlobal('cancelAnimationFrame', () => undefined);
    const flush = vi.fn();
    scheduleAnimationFrame(flush);
    expect(callbacks).toHaveLength(1);
    callbacks[0]?.(0);
    expect(flush).toHaveBeenCalledOnce();
  });

  it('falls back to a setTimeout(0) macrotask where requestAnimationFrame is missing', async () => {
    vi.stubGlobal('requestAnimationFrame', undefined);
    const store = source({ status: 'streaming', count: 0 });
    const batched = frameBatchedStore(store);
    const notified: number[] = [];
    batched.subscribe(() => notified.push(batched.getSnapshot().count));
    store.set({ count: 1 });
    store.set({ count: 2 });
    expect(notified).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(notified).toEqual([2]);
  });

  it('spaces out publishes while rendering is expensive, keeping renders to their share of the time', () => {
    const { store, frames, renders, batched } = budgetedStore();
    const notified: number[] = [];
    batched.subscribe(() => notified.push(batched.getSnapshot().count));

    store.set({ count: 1 });
    frames.frame();
    expect(notified).toEqual([1]);
    // That frame's render took 20 ms: at a share of ½, nothing more for the next 20 ms.
    renders.renderTakes(20);
    store.set({ count: 2 });
    renders.advance(16);
    frames.frame();
    expect(notified).toEqual([1]);
    store.set({ count: 3 });
    renders.advance(4);
    frames.frame();
    expect(notified).toEqual([1, 3]);
    // A cheap render (1 ms): the next change goes at the next frame after 1 ms.
    renders.renderTakes(1);
    store.set({ count: 4 });
    renders.advance(16);
    frames.frame();
    expect(notified).toEqual([1, 3, 4]);
  });

  it('publishes nothing that is not urgent until the last render was measured, but urgent changes at once', () => {
    const { store, frames, renders, batched } = budgetedStore();
    const notified: State[] = [];
    batched.subscribe(() => notified.push(batched.getSnapshot()));

    store.set({ count: 1 });
    frames.frame();
    store.set({ count: 2 });
    frames.frame();
    expect(notified).toEqual([{ status: 'streaming', count: 1 }]);
    store.set({ status: 'idle' });
    expect(notified.at(-1)).toEqual({ status: 'idle', count: 2 });
    expect(renders.measuring).toBe(true);
  });

  it('measures nothing with a share of 1 and leaves nothing scheduled after the last listener left', () => {
    const store = source({ status: 'streaming', count: 0 });
    const frames = manualFrames();
    const renders = manualRenders();
    const options = {
      schedule: frames.schedule,
      afterRender: renders.afterRender,
      now: renders.now,
    };
    const everyFrame = frameBatchedStore(store, { ...options, renderShare: 1 });
    const unsubscribeEveryFrame = everyFrame.subscribe(() => undefined);
    store.set({ count: 1 });
    frames.frame();
    expect(renders.measuring).toBe(false);
    unsubscribeEveryFrame();

    const budgeted = frameBatchedStore(store, options);
    const unsubscribe = budgeted.subscribe(() => undefined);
    store.set({ count: 2 });
    frames.frame();
    expect(renders.measuring).toBe(true);
    store.set({ count: 3 });
    unsubscribe();
    expect(renders.measuring).toBe(false);
    frames.frame();
    expect(frames.scheduled).toBe(3);
  });

  it('rejects a render share outside (0, 1]', () => {
    const store = source({ status: 'idle', count: 0 });
    expect(() => frameBatchedStore(store, { renderShare: 0 })).toThrow(RangeError);
    expect(() => frameBatchedStore(store, { renderShare: 1.5 })).toThrow(RangeError);
  });

  it('measures a render in the next task, and the channel it used keeps no Node process alive', async () => {
    const store = source({ status: 'streaming', count: 0 });
    const frames = manualFrames();
    const batched = frameBatchedStore(store, { schedule: frames.schedule });
    const notified: number[] = [];
    batched.subscribe(() => notified.push(batched.getSnapshot().count));
    store.set({ count: 1 });
    frames.frame();
    store.set({ count: 2 });
    frames.frame();
    expect(notified).toEqual([1]);
    await new Promise((resolve) => setTimeout(resolve, 5));
    frames.frame();
    expect(notified).toEqual([1, 2]);
  });

  it('beforeNextFlush: prepares once just before the next publish, which shows what it changed', () => {
    const { store, frames, batched, notified } = streamingStoreOnFrames();

    // A source that holds its changes: it asks, and changes only when prepared.
    let held = 0;
    const prepare = vi.fn(() => store.set({ count: held }));
    held = 3;
    batched.beforeNextFlush(prepare);
    expect(frames.scheduled).toBe(1);
    held = 7;
    expect(prepare).not.toHaveBeenCalled();

    frames.frame();
    expect(prepare).toHaveBeenCalledTimes(1);
    // The change made while preparing is published by that flush, not scheduled again.
    expect(notified).toEqual([7]);
    expect(frames.scheduled).toBe(1);
    frames.frame();
    expect(prepare).toHaveBeenCalledTimes(1);
    expect(notified).toEqual([7]);
  });

  it('beforeNextFlush: an urgent change prepares first, so held changes show before it', () => {
    const store = source({ status: 'streaming', count: 0 });
    const frames = manualFrames();
    const batched = frameBatchedStore(store, {
      isUrgent: statusChanged,
      schedule: frames.schedule,
      renderShare: 1,
    });
    const notified: State[] = [];
    batched.subscribe(() => notified.push(batched.getSnapshot()));

    batched.beforeNextFlush(() => store.set({ count: 5 }));
    store.set({ status: 'idle' });
    expect(notified).toEqual([{ status: 'idle', count: 5 }]);
    frames.frame();
    expect(notified).toHaveLength(1);
  });

  it('beforeNextFlush: prepares at once without subscribers, and when the last one leaves', () => {
    const store = source({ status: 'streaming', count: 0 });
    const frames = manualFrames();
    const batched = frameBatchedStore(store, { schedule: frames.schedule, renderShare: 1 });

    batched.beforeNextFlush(() => store.set({ count: 1 }));
    expect(batched.getSnapshot().count).toBe(1);
    expect(frames.scheduled).toBe(0);

    const unsubscribe = batched.subscribe(() => undefined);
    batched.beforeNextFlush(() => store.set({ count: 2 }));
    expect(batched.getSnapshot().count).toBe(1);
    unsubscribe();
    expect(store.getSnapshot().count).toBe(2);
    expect(batched.getSnapshot().count).toBe(2);
  });

  it('beforeNextFlush waits out the render budget with the rest', () => {
    const { store, frames, renders, batched } = budgetedStore();
    const notified: number[] = [];
    batched.subscribe(() => notified.push(batched.getSnapshot().count));
    store.set({ count: 1 });
    frames.frame();
    renders.renderTakes(10); // quiet for 10 ms from now

    const prepare = vi.fn(() => store.set({ count: 2 }));
    batched.beforeNextFlush(prepare);
    frames.frame();
    expect(prepare).not.toHaveBeenCalled();
    renders.advance(10);
    frames.frame();
    expect(prepare).toHaveBeenCalledTimes(1);
    expect(notified).toEqual([1, 2]);
  });
});
