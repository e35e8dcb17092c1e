/** The `useSyncExternalStore` contract: `subscribe(listener)` and a stable `getSnapshot()`. */
export interface ExternalStore<Snapshot> {
  subscribe(listener: () => void): () => void;
  getSnapshot(): Snapshot;
}

/** Options of {@link frameBatchedStore}. */
export interface FrameBatchedStoreOptions<Snapshot> {
  /**
   * True when `next` must reach subscribers at once instead of at the next frame (e.g. a status
   * change, so that the end of a run is never delayed). Default: never urgent.
   */
  isUrgent?: (previous: Snapshot, next: Snapshot) => boolean;
  /**
   * Schedules `flush` and returns a function that cancels it. Default
   * {@link scheduleAnimationFrame}: `requestAnimationFrame`, or `setTimeout(0)` where there is
   * none (Node, some workers).
   */
  schedule?: (flush: () => void) => () => void;
}

/**
 * Schedules `flush` for the next animation frame (`requestAnimationFrame`), falling back to a
 * `setTimeout(…, 0)` macrotask where rAF is missing. Returns the cancel function.
 */
export function scheduleAnimationFrame(flush: () => void): () => void {
  const frame = globalThis.requestAnimationFrame as typeof requestAnimationFrame | undefined;
  if (typeof frame === 'function') {
    const id = frame(() => flush());
    return () => globalThis.cancelAnimationFrame(id);
  }
  const id = setTimeout(flush, 0);
  return () => clearTimeout(id);
}

/**
 * Wraps an external store so that its subscribers see at most one new snapshot per animation
 * frame: notifications in between are coalesced, and `getSnapshot()` keeps returning the
 * snapshot last published, so React never renders a state newer than the one it was told about.
 * Urgent changes (see {@link FrameBatchedStoreOptions.isUrgent}) are published at once, together
 * with anything still pending.
 *
 * While nobody is subscribed, `getSnapshot()` passes the source's snapshot through.
 */
export function frameBatchedStore<Snapshot>(
  source: ExternalStore<Snapshot>,
  options: FrameBatchedStoreOptions<Snapshot> = {},
): ExternalStore<Snapshot> {
  const { isUrgent = () => false, schedule = scheduleAnimationFrame } = options;
  const listeners = new Set<() => void>();
  let published = source.getSnapshot();
  let cancelFlush: (() => void) | undefined;
  let unsubscribeSource: (() => void) | undefined;

  const publish = () => {
    cancelFlush?.();
    cancelFlush = undefined;
    const next = source.getSnapshot();
    if (Object.is(next, published)) return;
    published = next;
    for (const listener of [...listeners]) listener();
  };
  const onSourceChange = () => {
    const next = source.getSnapshot();
    if (isUrgent(published, next)) publish();
    else cancelFlush ??= schedule(publish);
  };

  return {
    subscribe(listener) {
      listeners.add(listener);
      if (unsubscribeSource === undefined) {
        published = source.getSnapshot();
        unsubscribeSource = source.subscribe(onSourceChange);
      }
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) {
          unsubscribeSource?.();
          unsubscribeSource = undefined;
          cancelFlush?.();
          cancelFlush = undefined;
        }
      };
    },
    getSnapshot() {
      if (unsubscribeSource === undefined) published = source.getSnapshot();
      return published;
    },
  };
}
