import { SwitchboardError, type Chunk } from '@switchboard/core';

/** A `run.failed` chunk's error as JSON keeps it (an `Error`'s message is not enumerable). */
interface ErrorJson {
  code: SwitchboardError['code'];
  message: string;
  details?: unknown;
}

/** `chunk` as JSON keeps it: a `run.failed` error as `{ code, message, details }`. */
export function chunkToJson(chunk: Chunk): unknown {
  if (chunk.type !== 'run.failed') return chunk;
  const error: ErrorJson = { code: chunk.error.code, message: chunk.error.message };
  if (chunk.error.details !== undefined) error.details = chunk.error.details;
  return { ...chunk, error };
}

/** The chunk {@link chunkToJson} wrote, its error a `SwitchboardError` again. */
export function chunkFromJson(json: Chunk): Chunk {
  if (json.type !== 'run.failed') return json;
  const error = json.error as unknown as ErrorJson;
  return {
    ...json,
    error: new SwitchboardError(
      error.code,
      error.message,
      error.details === undefined ? {} : ({ details: error.details } as never),
    ),
  };
}
