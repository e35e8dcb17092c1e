/**
 * An append-only buffer that any number of consumers can iterate, each from the start.
 * Used for a run's chunks: a run emits a bounded number of chunks, and replay means a late
 * `for await` (or a second consumer such as a UI store) sees the whole run. A push after
 * `close()` is dropped; every iteration ends once the channel is closed and drained.
 * Exported through `@switchboard/core/server` for other `AgentEndpoint`s' run handles.
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
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    let index = 0;
    for (;;) {
      while (index < this.#values.length) {
        yield this.#values[index++] as T;
      }
      if (this.#closed) return;
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }
}
