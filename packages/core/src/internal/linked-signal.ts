/**
 * A child abort signal tied to parent signals, whose listeners on the parents are always removed
 * again. Long-lived signals (a run's, or one a caller shares across thousands of calls) then
 * carry at most one listener per operation in flight, never one per operation ever made.
 */
export interface LinkedSignal {
  /** Aborts when any parent aborts (with that parent's reason) or on {@link abort}. */
  readonly signal: AbortSignal;
  /** Aborts {@link signal} with `reason` and unlinks from the parents. */
  abort(reason?: unknown): void;
  /** Unlinks from the parents without aborting. Idempotent; call it when the operation ends. */
  dispose(): void;
}

/**
 * A signal that never aborts, for an operation no caller can stop (a direct tool call made
 * without a `signal`). {@link linkSignals} skips it: linking to it costs no listener and no
 * unlinking, where a fresh `new AbortController().signal` per operation would cost both.
 * Never abort it (nothing can: its controller is not reachable).
 */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal;

/** The children of one parent signal, and the one listener on the parent that serves them. */
interface Fanout {
  readonly children: Set<(reason: unknown) => void>;
  readonly dispatch: () => void;
}

/** One {@link Fanout} per parent signal with live children. */
const fanouts = new WeakMap<AbortSignal, Fanout>();

/**
 * Calls `onAbort` with the reason when `parent` aborts. However many operations subscribe at
 * once, `parent` carries a single `abort` listener, removed when the last one unsubscribes: a
 * signal shared by hundreds of calls in flight stays under Node's MaxListeners warning.
 */
function subscribe(parent: AbortSignal, onAbort: (reason: unknown) => void): () => void {
  let fanout = fanouts.get(parent);
  if (fanout === undefined) {
    const children = new Set<(reason: unknown) => void>();
    const dispatch = (): void => {
      fanouts.delete(parent);
      for (const child of [...children]) child(parent.reason);
      children.clear();
    };
    fanout = { children, dispatch };
    fanouts.set(parent, fanout);
    parent.addEventListener('abort', dispatch, { once: true });
  }
  const { children, dispatch } = fanout;
  children.add(onAbort);
  return () => {
    if (!children.delete(onAbort) || children.size > 0) return;
    if (fanouts.get(parent) === fanout) fanouts.delete(parent);
    parent.removeEventListener('abort', dispatch);
  };
}

/**
 * Links a new signal to `parents` (`undefined` entries and {@link NEVER_ABORTED} are skipped). When a parent has already
 * aborted, the new signal is aborted at once with its reason. A parent carries at most one
 * listener for all the links made to it that are still live; a link is released on
 * {@link LinkedSignal.dispose}, on {@link LinkedSignal.abort}, and when a parent aborts, so
 * nothing is left behind whichever way the operation ends.
 */
export function linkSignals(...parents: readonly (AbortSignal | undefined)[]): LinkedSignal {
  const controller = new AbortController();
  // Most links have no parent that can abort (a direct call's clock): nothing to subscribe to.
  if (parents.every((parent) => parent === undefined || parent === NEVER_ABORTED)) {
    return {
      signal: controller.signal,
      abort: (reason) => controller.abort(reason),
      dispose: () => undefined,
    };
  }
  const linked = parents.filter(
    (parent): parent is AbortSignal => parent !== undefined && parent !== NEVER_ABORTED,
  );
  const already = linked.find((parent) => parent.aborted);
  let unsubscribers: (() => void)[] = [];
  const unlink = (): void => {
    for (const unsubscribe of unsubscribers) unsubscribe();
    unsubscribers = [];
  };
  if (already !== undefined) {
    controller.abort(already.reason);
  } else {
    unsubscribers = linked.map((parent) =>
      subscribe(parent, (reason) => {
        unlink();
        controller.abort(reason);
      }),
    );
  }
  return {
    signal: controller.signal,
    abort: (reason) => {
      unlink();
      controller.abort(reason);
    },
    dispose: unlink,
  };
}

/**
 * A promise that resolves when `signal` aborts (at once if it has), and a `dispose` that removes
 * its listener: for `Promise.race([work, aborted.promise])` followed by `aborted.dispose()`.
 */
export function whenAborted(signal: AbortSignal): { promise: Promise<void>; dispose(): void } {
  if (signal.aborted) return { promise: Promise.resolve(), dispose: () => undefined };
  let onAbort: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => {
    onAbort = () => resolve();
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return { promise, dispose: () => signal.removeEventListener('abort', onAbort) };
}
