/** The `useSyncExternalStore` contract: `subscribe(listener)` and a stable `getSnapshot()`. */
export interface ExternalStore<Snapshot> {
  subscribe(listener: () => void): () => void;
  getSnapshot(): Snapshot;
}

/** What {@link frameBatchedStore} returns: an {@link ExternalStore} that can be prepared. */
export interface FrameBatchedStore<Snapshot> extends ExternalStore<Snapshot> {
  /**
   * Calls `prepare` once, just before the store next reads the source to publish (the next
   * frame's flush, or an urgent change, whichever comes first), and asks for that flush. Made
   * for a source that holds changes until they are about to be shown (`AgentChat`'s
   * `holdDeltas`): `prepare` may change the source; the store publishes the result and takes
   * the notifications `prepare` causes as already seen. Called at once while nobody is
   * subscribed (nothing renders; `getSnapshot()` reads the source through), and the ones
   * still waiting when the last subscriber leaves are called then.
   */
  beforeNextFlush(prepare: () => void): void;
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
  /**
   * The largest share of the time, between 0 (exclusive) and 1, that rendering published
   * snapshots may take while non-urgent changes keep coming. After a publish the store measures
   * what it cost (from notifying the subscribers until the next task, so React's render and the
   * browser's style, layout and paint of that frame are included) and publishes nothing that is
   * not urgent until `cost × (1 / renderShare − 1)` ms after it: a render that got expensive (a
   * long streamed text laid out again each frame) spaces out the next ones, and the tasks in
   * between (the stream itself) get the rest of the time. Cheap renders still go once per
   * frame. `1` turns the budget off (publish every frame). Default `0.5`.
   */
  renderShare?: number;
  /**
   * Calls `measured` in a new task once the current one and the rendering it caused are over,
   * and returns a function that cancels it. Default {@link scheduleNextTask}.
   */
  afterRender?: (measured: () => void) => () => void;
  /** The clock the budget is measured with, in ms. Default `performance.now()`. */
  now?: () => number;
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
 * Calls `run` in a new task: a `MessageChannel` message (not clamped like a nested
 * `setTimeout`), or `setTimeout(…, 0)` where there is none. A frame's rendering (React's
 * commit in an animation-frame callback, then style, layout and paint) finishes before the
 * message's task starts. Returns the cancel function; the channel is closed either way, so it
 * keeps no Node process alive.
 */
export function scheduleNextTask(run: () => void): () => void {
  if (typeof MessageChannel !== 'function') {
    const id = setTimeout(run, 0);
    return () => clearTimeout(id);
  }
  const channel = new MessageChannel();
  channel.port1.onmessage = () => {
    channel.port1.close();
    run();
  };
  channel.port2.postMessage(null);
  return () => channel.port1.close();
}

/**
 * Wraps an external store so that its subscribers see at most one new snapshot per animation
 * frame: notifications in between are coalesced, and `getSnapshot()` keeps returning the
 * snapshot last published, so React never renders a state newer than the one it was told about.
 * Urgent changes (see {@link FrameBatchedStoreOptions.isUrgent}) are published at once, together
 * with anything still pending. While rendering the published snapshots gets expensive, the
 * other changes are published less often than once per frame (see
 * {@link FrameBatchedStoreOptions.renderShare}).
 *
 * While nobody is subscribed, `getSnapshot()` passes the source's snapshot through.
 * {@link FrameBatchedStore.beforeNextFlush} lets the source fold held changes just before a
 * publish.
 *
 * @throws RangeError when `renderShare` is not in (0, 1].
 */
export function frameBatchedStore<Snapshot>(
  source: ExternalStore<Snapshot>,
  options: FrameBatchedStoreOptions<Snapshot> = {},
): FrameBatchedStore<Snapshot> {
  const {
    isUrgent = () => false,
    schedule = scheduleAnimationFrame,
    renderShare = 0.5,
    afterRender = scheduleNextTask,
    now = () => performance.now(),
  } = options;
  if (!(renderShare > 0 && renderShare <= 1)) {
    throw new RangeError(`renderShare must be in (0, 1], got ${renderShare}`);
  }
  // Quiet time per ms of rendering: a share of ½ waits as long as the render took.
  const quietPerRenderMs = 1 / renderShare - 1;
  const listeners = new Set<() => void>();
  let published = source.getSnapshot();
  let cancelFlush: (() => void) | undefined;
  let cancelMeasure: (() => void) | undefined;
  /** Before this time (of `now`), changes that are not urgent wait. */
  let quietUntil = -Infinity;
  let unsubscribeSource: (() => void) | undefined;
  /** `beforeNextFlush` callbacks, called (and cleared) by the next publish. */
  let preparations: (() => void)[] = [];
  /** True while they run: their source notifications are published right after anyway. */
  let preparing = false;

  const prepare = () => {
    if (preparations.length === 0) return;
    const due = preparations;
    preparations = [];
    preparing = true;
    try {
      for (const preparation of due) preparation();
    } finally {
      preparing = false;
    }
  };
  const publish = () => {
    cancelFlush?.();
    cancelFlush = undefined;
    prepare();
    const next = source.getSnapshot();
    if (Object.is(next, published)) return;
    published = next;
    const started = now();
    for (const listener of [...listeners]) listener();
    if (quietPerRenderMs === 0) return;
    cancelMeasure?.();
    cancelMeasure = afterRender(() => {
      cancelMeasure = undefined;
      const ended = now();
      quietUntil = ended + (ended - started) * quietPerRenderMs;
    });
  };
  // A frame while the last render is still being measured, or its quiet time lasts, publishes
  // nothing and asks for the next frame: no commit, so that frame costs next to nothing.
  const flushWhenDue = () => {
    cancelFlush = undefined;
    if (cancelMeasure !== undefined || now() < quietUntil) cancelFlush = schedule(flushWhenDue);
    else publish();
  };
  const onSourceChange = () => {
    if (preparing) return;
    const next = source.getSnapshot();
    if (isUrgent(published, next)) publish();
    else cancelFlush ??= schedule(flushWhenDue);
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
          cancelMeasure?.();
          cancelMeasure = undefined;
          quietUntil = -Infinity;
          prepare();
        }
      };
    },
    beforeNextFlush(preparation) {
      if (unsubscribeSource === undefined) {
        preparation();
        return;
      }
      preparations.push(preparation);
      cancelFlush ??= schedule(flushWhenDue);
    },
    getSnapshot() {
      if (unsubscribeSource === undefined) published = source.getSnapshot();
      return published;
    },
  };
}
