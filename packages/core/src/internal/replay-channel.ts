/**
 * An append-only buffer that any number of consumers can iterate, each from the start.
 * Used for a run's chunks: a run emits a bounded number of chunks, and replay means a late
 * `for await` (or a second consumer such as a UI store) sees the whole run.
 */
export class ReplayChannel<T> implements AsyncIterable<T> {
  readonly #values: T[] = [];
  #closed = false;
  #waiters: (() => void)[] = [];

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
