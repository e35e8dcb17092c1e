/**
 * An append-only buffer that any number of consumers can iterate, each from the start.
 * Used for a run's chunks: a run emits a bounded number of chunks, and replay means a late
 * `for await` (or a second consumer such as a UI store) sees the whole run. A push after
 * `close()` is dropped; every iteration ends once the channel is closed and drained.
 * Exported through `@switchboard/core/server` for other `AgentEndpoint`s' run handles.
 *
 * The iterator is written by hand rather than as an async generator: a buffered value is handed
 * out in one already-settled promise, without a generator's extra awaits per value (a run may
 * emit tens of thousands of text deltas).
 */
export class ReplayChannel<T> implements AsyncIterable<T> {
  readonly #values: T[] = [];
  #closed = false;
  #waiters: (() => void)[] = [];

  /** How many values were pushed so far. */
  get length(): number {
    return this.#values.length;
  }

  push(value: T): void {
    if (this.#closed) return;
    this.#values.push(value);
    this.#wake();
  }

  close(): void {
    this.#closed = true;
    this.#wake();
  }

  #wake(): void {
    if (this.#waiters.length === 0) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    let index = 0;
    let stopped = false;
    const next = (): Promise<IteratorResult<T>> => {
      if (!stopped && index < this.#values.length) {
        return Promise.resolve({ value: this.#values[index++] as T, done: false });
      }
      if (stopped || this.#closed) return Promise.resolve({ value: undefined, done: true });
      return new Promise<void>((resolve) => this.#waiters.push(resolve)).then(next);
    };
    return {
      next,
      return: () => {
        stopped = true;
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
