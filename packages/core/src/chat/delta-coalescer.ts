import type { Chunk, ReasoningDeltaChunk, TextDeltaChunk } from '../agent/chunks.ts';

/** The chunks a {@link DeltaCoalescer} holds back. */
export type DeltaChunk = TextDeltaChunk | ReasoningDeltaChunk;

/**
 * Holds a run's text and reasoning deltas back for at most one task and hands them on together,
 * consecutive deltas of one kind joined into one: a chat then makes one new snapshot (and
 * notifies its subscribers once) per task of the stream — a network read, a batch of a model's
 * events — instead of once per delta, which for thousands of deltas cost more than everything
 * else on the way to the screen. The caller calls {@link flush} before any other chunk, so the
 * order of what it shows never changes; a delta reaches the snapshot at the latest one task
 * after it arrived.
 */
export class DeltaCoalescer {
  readonly #apply: (chunks: readonly DeltaChunk[]) => void;
  #pending: DeltaChunk[] = [];
  #cancel: (() => void) | undefined;

  /** `apply` receives the held deltas, in order, consecutive ones of one kind joined. */
  constructor(apply: (chunks: readonly DeltaChunk[]) => void) {
    this.#apply = apply;
  }

  /** Holds `chunk` until the end of the current task (or the next {@link flush}). */
  add(chunk: DeltaChunk): void {
    const last = this.#pending.at(-1);
    if (last?.type === chunk.type) {
      // A copy of the first delta (below) grows; the chunks themselves are never changed.
      last.delta += chunk.delta;
      last.sequence = chunk.sequence;
    } else {
      this.#pending.push({ ...chunk });
    }
    this.#cancel ??= afterThisTask(() => {
      this.#cancel = undefined;
      this.flush();
    });
  }

  /** Hands the held deltas on now (a no-op when none are held). */
  flush(): void {
    this.#cancel?.();
    this.#cancel = undefined;
    if (this.#pending.length === 0) return;
    const chunks = this.#pending;
    this.#pending = [];
    this.#apply(chunks);
  }
}

/** True for the chunks a {@link DeltaCoalescer} takes. */
export function isDeltaChunk(chunk: Chunk): chunk is DeltaChunk {
  return chunk.type === 'text.delta' || chunk.type === 'reasoning.delta';
}

/**
 * Runs `callback` in a new task (a `MessageChannel` message: not clamped like a nested
 * `setTimeout`, and not held back by fake timers); returns the cancel function.
 */
function afterThisTask(callback: () => void): () => void {
  if (typeof MessageChannel !== 'function') {
    const timer = setTimeout(callback, 0);
    return () => clearTimeout(timer);
  }
  const channel = new MessageChannel();
  const close = () => {
    channel.port1.close();
    channel.port2.close();
  };
  channel.port1.onmessage = () => {
    close();
    callback();
  };
  channel.port2.postMessage(null);
  return close;
}
