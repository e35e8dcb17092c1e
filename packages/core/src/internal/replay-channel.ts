import { whenTaskEnds } from './task-end.ts';

/**
 * An append-only buffer that any number of consumers can iterate, each from the start.
 * Used for a run's chunks: a run emits a bounded number of chunks, and replay means a late
 * `for await` (or a second consumer such as a UI store) sees the whole run. A push after
 * `close()` is dropped; every iteration ends once the channel is closed and drained.
 * Exported through `@switchboard/core/server` for other `AgentEndpoint`s' run handles.
 *
 * The iterator is written by hand rather than as an async generator: a buffered value is handed
 * out in one already-settled promise, without a generator's extra awaits per value (a run may
 * emit tens of thousands of text deltas). A consumer that folds many values into one state
 * change reads them in batches instead ({@link batchReader}): no promise per value at all.
 */
export class ReplayChannel<T> implements AsyncIterable<T> {
  readonly #values: T[] = [];
  #closed = false;
  #waiters: (() => void)[] = [];
  /** Batch readers waiting for values (see {@link batchReader}): each push and the close. */
  readonly #batchListeners = new Set<(value: T | undefined, closed: boolean) => void>();

  /** How many values were pushed so far. */
  get length(): number {
    return this.#values.length;
  }

  push(value: T): void {
    if (this.#closed) return;
    this.#values.push(value);
    this.#wake();
    for (const listener of this.#batchListeners) listener(value, false);
  }

  close(): void {
    this.#closed = true;
    this.#wake();
    for (const listener of this.#batchListeners) listener(undefined, true);
  }

  #wake(): void {
    if (this.#waiters.length === 0) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  /**
   * A reader that hands out every value buffered so far at once, from the first value on (each
   * reader reads the whole channel, as each `for await` does): for a consumer that folds a
   * run's values into one state change per batch (`AgentChat`); `for await` keeps handing out
   * one value at a time.
   *
   * @param holdable values that may wait, so that the values after them join their batch
   *   (`AgentChat`: text and reasoning deltas). Any other value is handed out at once, with the
   *   values before it. Default: none.
   * @param holdUntil how long held values wait: called with `handOut` when the first one of a
   *   batch arrives (from inside {@link push}), it calls `handOut` once they should go (a
   *   `handOut` with nothing left to hand, after a {@link ReplayBatchReader.takeBuffered}, keeps
   *   waiting). Default: until the end of the task they were pushed in.
   */
  batchReader(
    holdable: (value: T) => boolean = () => false,
    holdUntil: (handOut: () => void) => void = handOutAtTaskEnd,
  ): ReplayBatchReader<T> {
    const values = this.#values;
    let index = 0;
    const takeBuffered = (): T[] => {
      if (index === values.length) return [];
      const batch = values.slice(index);
      index = values.length;
      return batch;
    };
    const take = (): T[] | undefined =>
      index === values.length && this.#closed ? undefined : takeBuffered();
    const onlyHoldable = (): boolean => {
      for (let at = index; at < values.length; at++) {
        if (!holdable(values[at] as T)) return false;
      }
      return true;
    };
    return {
      next: () => {
        if (this.#closed || (index < values.length && !onlyHoldable())) {
          return Promise.resolve(take());
        }
        return new Promise<T[] | undefined>((resolve) => {
          let holding = false;
          const handOut = (): void => {
            holding = false;
            // Taken meanwhile (`takeBuffered`): wait for the next value.
            if (index === values.length && !this.#closed) return;
            if (!this.#batchListeners.delete(onPush)) return;
            resolve(take());
          };
          const hold = (): void => {
            if (holding) return;
            holding = true;
            holdUntil(handOut);
          };
          const onPush = (value: T | undefined, closed: boolean): void => {
            if (closed || !holdable(value as T)) handOut();
            else hold();
          };
          this.#batchListeners.add(onPush);
          if (index < values.length) hold();
        });
      },
      takeBuffered,
    };
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

/** Reads a {@link ReplayChannel} in batches; see {@link ReplayChannel.batchReader}. */
export interface ReplayBatchReader<T> {
  /**
   * Every value pushed since the previous call (the first call: since the start), in order,
   * at least one — once one waits that may not be held, or at the end of the task the first
   * one was pushed in; `undefined` once the channel is closed and every value was read.
   * Never rejects. Call it again only after it resolved.
   */
  next(): Promise<T[] | undefined>;
  /**
   * Every value pushed since the last hand-out, now (none: `[]`), so that held values can be
   * folded synchronously (`AgentChat` just before a frame renders). A pending {@link next} then
   * waits for the values pushed after them.
   */
  takeBuffered(): T[];
}

/** The default hold of {@link ReplayChannel.batchReader}: until the end of the current task. */
function handOutAtTaskEnd(handOut: () => void): void {
  void whenTaskEnds().then(handOut);
}
