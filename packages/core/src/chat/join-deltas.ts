import type { Chunk, ReasoningDeltaChunk, TextDeltaChunk } from '../agent/chunks.ts';

/** The chunks {@link joinDeltas} joins. */
export type DeltaChunk = TextDeltaChunk | ReasoningDeltaChunk;

/**
 * `chunks` with each run of consecutive deltas of one kind (`text.delta`, `reasoning.delta`)
 * joined into one delta chunk (the text of all, the sequence of the last), every other chunk
 * kept in place: folding the result into a chat gives the same messages as folding `chunks`
 * one by one, with one message update per run of deltas instead of one per delta. The chunks
 * given are never changed (a joined delta is a new object).
 */
export function joinDeltas(chunks: readonly Chunk[]): Chunk[] {
  const joined: Chunk[] = [];
  /** The joined delta being built: the last entry of `joined`, owned by this function. */
  let open: DeltaChunk | undefined;
  for (const chunk of chunks) {
    if (!isDeltaChunk(chunk)) {
      open = undefined;
      joined.push(chunk);
    } else if (open?.type === chunk.type) {
      // A cons string: O(1) per delta, whatever the length so far.
      open.delta += chunk.delta;
      open.sequence = chunk.sequence;
    } else {
      open = { ...chunk };
      joined.push(open);
    }
  }
  return joined;
}

/** True for the chunks {@link joinDeltas} joins. */
export function isDeltaChunk(chunk: Chunk): chunk is DeltaChunk {
  return chunk.type === 'text.delta' || chunk.type === 'reasoning.delta';
}
