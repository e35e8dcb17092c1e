import type { Chunk } from '../agent/chunks.ts';
import type { RunHandle, RunResult } from '../agent/run-result.ts';

/** Everything one run produced: its chunks in order and its result. */
export interface CollectedRun {
  chunks: Chunk[];
  result: RunResult;
}

/**
 * Drains a run: every chunk of `handle.chunks`, then `handle.result()`. Resolves when the run
 * ends (completed, paused, failed or cancelled); never rejects for a failed run, whose error is
 * in `result.error`.
 */
export async function collectRun(handle: RunHandle): Promise<CollectedRun> {
  const chunks: Chunk[] = [];
  for await (const chunk of handle.chunks) chunks.push(chunk);
  return { chunks, result: await handle.result() };
}

/** The chunks of one `type`, typed as such: `ofType(chunks, 'tool.result')`. */
export function ofType<Type extends Chunk['type']>(
  chunks: readonly Chunk[],
  type: Type,
): Extract<Chunk, { type: Type }>[] {
  return chunks.filter((chunk): chunk is Extract<Chunk, { type: Type }> => chunk.type === type);
}
