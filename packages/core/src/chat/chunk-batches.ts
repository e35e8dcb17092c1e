import type { Chunk } from '../agent/chunks.ts';
import { ReplayChannel } from '../internal/replay-channel.ts';
import { isDeltaChunk } from './join-deltas.ts';

/**
 * A run's chunks in batches, so a chat makes one snapshot per batch instead of one per delta:
 * text and reasoning deltas wait for the end of the task they arrived in (a network read, a
 * batch of a model's events), and the rest of the task's chunks join them; any other chunk is
 * handed over at once, with the deltas before it. So a delta shows at the latest one task
 * after it arrived, and the order of what a chat shows never changes.
 *
 * Reads a run's {@link ReplayChannel} (every run handle's `chunks` in this repository) with
 * its batch reader, no promise per chunk; any other `AsyncIterable` is first buffered into
 * one. Ends when the chunks end.
 *
 * @throws what iterating `chunks` threw, after the chunks before it.
 */
export async function* chunkBatches(chunks: AsyncIterable<Chunk>): AsyncGenerator<Chunk[]> {
  const source = asReplayChannel(chunks);
  const reader = source.channel.batchReader(isDeltaChunk);
  for (let batch = await reader.next(); batch !== undefined; batch = await reader.next()) {
    yield batch;
  }
  source.rethrow();
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
