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
 * Links a new signal to `parents` (`undefined` entries are skipped). When a parent has already
 * aborted, the new signal is aborted at once with its reason. The listeners added to the parents
 * are removed on {@link LinkedSignal.dispose}, on {@link LinkedSignal.abort}, and when a parent
 * aborts, so nothing is left behind whichever way the operation ends.
 */
export function linkSignals(...parents: readonly (AbortSignal | undefined)[]): LinkedSignal {
  const controller = new AbortController();
  const linked = parents.filter((parent): parent is AbortSignal => parent !== undefined);
  const unlink = (): void => {
    for (const parent of linked) parent.removeEventListener('abort', onParentAbort);
  };
  function onParentAbort(this: AbortSignal): void {
    unlink();
    controller.abort(this.reason);
  }
  const already = linked.find((parent) => parent.aborted);
  if (already !== undefined) {
    controller.abort(already.reason);
  } else {
    for (const parent of linked) parent.addEventListener('abort', onParentAbort, { once: true });
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
