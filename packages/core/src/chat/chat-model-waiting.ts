import type { Chunk } from '../agent/chunks.ts';

/**
 * The streaming run's model call has had no response headers for a while
 * (`ChatSnapshot.modelWaiting`, set by a `model.waiting` chunk): lets a UI say "Waiting for a
 * free connection to api.openai.com — other tabs may be holding them" instead of "Thinking…".
 * Cleared by the next chunk (the model's first output, a retry, the run's end).
 */
export interface ChatModelWaiting {
  /** The model called, as `provider/modelId`. */
  model: string;
  /** The host the request is for. */
  host: string;
  /** When the request went out, in ms since the epoch (the chunk's arrival minus its wait). */
  since: number;
}

/**
 * The waiting state after `chunk` (pure; `now` is when the chunk arrived, in ms since the
 * epoch): set by `model.waiting`, cleared by any other chunk — every chunk after it means the
 * request got its answer or ended.
 */
export function nextModelWaiting(chunk: Chunk, now: number): ChatModelWaiting | undefined {
  if (chunk.type !== 'model.waiting') return undefined;
  return { model: chunk.model, host: chunk.host, since: now - chunk.waitedMs };
}
