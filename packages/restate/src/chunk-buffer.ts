import type { Chunk } from '@switchboard/core';

/**
 * A run's chunks as `RunHandle.chunks` gives them: every reader gets every chunk from the
 * first, in order, and the iteration ends once the buffer is closed.
 */
export class ChunkBuffer implements AsyncIterable<Chunk> {
  readonly #chunks: Chunk[] = [];
  #closed = false;
  #waiters: (() => void)[] = [];

  get length(): number {
    return this.#chunks.length;
  }

  push(chunk: Chunk): void {
    this.#chunks.push(chunk);
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

  async *[Symbol.asyncIterator](): AsyncIterator<Chunk> {
    let index = 0;
    for (;;) {
      const chunk = this.#chunks[index];
      if (chunk !== undefined) {
        index += 1;
        yield chunk;
        continue;
      }
      if (this.#closed) return;
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }
}
