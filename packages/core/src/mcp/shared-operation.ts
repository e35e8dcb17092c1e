/**
 * One operation that several callers wait for (single flight), such as the first `tools/list`
 * of a server that every run starting at once needs. The operation runs with a signal of its
 * own, never a caller's: a caller whose signal aborts stops waiting (its {@link wait} rejects),
 * and the others keep waiting. Only when every caller that waited has given up is the operation
 * itself aborted, and `onAbandoned` called (so the owner starts afresh for the next caller).
 */
export class SharedOperation<T> {
  /** Settles with the operation (callers use {@link wait} instead, to be able to give up). */
  readonly promise: Promise<T>;
  readonly #controller = new AbortController();
  readonly #onAbandoned: () => void;
  #waiters = 0;
  #settled = false;

  /**
   * @param run Starts at once, with the operation's own signal.
   * @param onAbandoned Called once when the last waiter gave up before the operation settled.
   */
  constructor(run: (signal: AbortSignal) => Promise<T>, onAbandoned: () => void) {
    this.#onAbandoned = onAbandoned;
    this.promise = run(this.#controller.signal);
    void this.promise.then(
      () => {
        this.#settled = true;
      },
      () => {
        this.#settled = true;
      },
    );
  }

  /**
   * Waits for the operation. When `signal` aborts first, rejects at once with
   * `abortError(signal)`; the operation goes on for the other waiters.
   */
  wait(signal: AbortSignal | undefined, abortError: (signal: AbortSignal) => unknown): Promise<T> {
    if (signal === undefined) {
      this.#waiters++;
      return this.promise;
    }
    if (signal.aborted) return Promise.reject(abortError(signal));
    this.#waiters++;
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        reject(abortError(signal));
        this.#leave();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.promise.then(
        (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
    });
  }

  #leave(): void {
    this.#waiters--;
    if (this.#waiters > 0 || this.#settled || this.#controller.signal.aborted) return;
    this.#controller.abort();
    this.#onAbandoned();
  }
}
