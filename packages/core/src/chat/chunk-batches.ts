import type { Chunk } from '../agent/chunks.ts';
import { ReplayChannel, type ReplayBatchReader } from '../internal/replay-channel.ts';
import { isDeltaChunk } from './join-deltas.ts';

/** A run's chunks read in batches; see {@link chunkBatches}. */
export interface ChunkBatches extends ReplayBatchReader<Chunk> {
  /** Throws what iterating the chunks threw; call it once {@link next} gave `undefined`. */
  rethrow(): void;
}

/**
 * A run's chunks in batches, so a chat makes one snapshot per batch instead of one per delta:
 * text and reasoning deltas wait (by default for the end of the task they arrived in: a network
 * read, a batch of a model's events; or as `holdUntil` says, see `ReplayChannel.batchReader`),
 * and the chunks after them join them; any other chunk is handed over at once, with the deltas
 * before it. So the order of what a chat shows never changes.
 *
 * Reads a run's {@link ReplayChannel} (every run handle's `chunks` in this repository) with
 * its batch reader, no promise per chunk; any other `AsyncIterable` is first buffered into
 * one. `next()` gives `undefined` once the chunks ended.
 */
export function chunkBatches(
  chunks: AsyncIterable<Chunk>,
  holdUntil?: (handOut: () => void) => void,
): ChunkBatches {
  const source = asReplayChannel(chunks);
  return { ...source.channel.batchReader(isDeltaChunk, holdUntil), rethrow: source.rethrow };
}

function asReplayChannel(chunks: AsyncIterable<Chunk>): {
  channel: ReplayChannel<Chunk>;
  rethrow: () => void;
} {
  if (chunks instanceof ReplayChannel) return { channel: chunks, rethrow: () => undefined };
  const channel = new ReplayChannel<Chunk>();
  let failure: { error: unknown } | undefined;
  void (async () => {
    try {
      for await (const chunk of chunks) channel.push(chunk);
    } catch (error) {
      failure = { error };
    } finally {
      channel.close();
    }
  })();
  return {
    channel,
    rethrow: () => {
      if (failure !== undefined) throw failure.error;
    },
  };
}
