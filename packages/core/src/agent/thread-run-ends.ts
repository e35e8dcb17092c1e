/**
 * Tells waiters when a run of a thread ended in this Agent: an app call's output waits on it
 * (`app-call-output.ts`), and model context held while the thread was busy is written then
 * (`app-model-context.ts`).
 */
export class ThreadRunEnds {
  readonly #waiters = new Map<string, Set<() => void>>();

  /** A promise that resolves at the thread's next run end; `dispose` when no longer needed. */
  next(threadId: string): { promise: Promise<void>; dispose(): void } {
    let waiters = this.#waiters.get(threadId);
    if (waiters === undefined) {
      waiters = new Set();
      this.#waiters.set(threadId, waiters);
    }
    const set = waiters;
    let wake: () => void = () => undefined;
    const promise = new Promise<void>((resolve) => {
      wake = resolve;
    });
    set.add(wake);
    return {
      promise,
      dispose: () => {
        set.delete(wake);
        if (set.size === 0 && this.#waiters.get(threadId) === set) this.#waiters.delete(threadId);
      },
    };
  }

  /** A run of `threadId` ended: wakes every waiter of the thread. */
  ended(threadId: string): void {
    const waiters = this.#waiters.get(threadId);
    this.#waiters.delete(threadId);
    for (const wake of waiters ?? []) wake();
  }
}
