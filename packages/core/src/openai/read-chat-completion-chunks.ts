import { APIError } from 'openai';
import type OpenAI from 'openai';
import { createParser } from 'eventsource-parser';

type ChatCompletionChunk = OpenAI.Chat.Completions.ChatCompletionChunk;

/**
 * The Chat Completions chunks of a streamed response (`text/event-stream`), read from its body
 * with `eventsource-parser` instead of the `openai` SDK's own `Stream`: the SDK's SSE splitter
 * copies the rest of its buffer after every event (quadratic in the size of a network read, so a
 * burst of thousands of deltas arriving at once blocks a browser tab for seconds), and hands out
 * one event per async step through four generators. Here each network read is split once
 * (linear), and its events come out together, one array per read, so a consumer pays one async
 * step per read, not per delta. `onRead` is called after every read (a sign of life, for an idle
 * clock).
 *
 * Follows the SDK's `Stream.fromSSEResponse` for chat: `data: [DONE]` ends the answer (anything
 * after it is ignored), every other event's data is JSON, and a JSON object with an `error` field
 * throws the SDK's `APIError` (no status: an error event in the stream), so failures map as before.
 * When `signal` aborts, the iteration ends quietly, as the SDK's does: the caller reads why from
 * its clock or signal. Stopping early cancels the body (the connection is released).
 *
 * @throws APIError for an error event; `SyntaxError` for data that is not JSON; what reading the
 *   body throws for a cut connection.
 */
export async function* readChatCompletionChunks(
  response: Response,
  signal: AbortSignal,
  onRead: () => void,
): AsyncGenerator<ChatCompletionChunk[]> {
  const body = response.body;
  if (body === null) return;
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let batch: ChatCompletionChunk[] = [];
  // Events after `[DONE]` or after a failure are ignored; the failure is thrown once the chunks
  // before it (of the same read) were handed out.
  let done = false;
  let failure: unknown;
  const parser = createParser({
    onEvent: ({ data }) => {
      if (done) return;
      if (data.startsWith('[DONE]')) {
        done = true;
        return;
      }
      try {
        const parsed = JSON.parse(data) as ChatCompletionChunk & { error?: unknown };
        if (parsed.error !== undefined && parsed.error !== null) {
          throw new APIError(undefined, parsed.error as object, undefined, response.headers);
        }
        batch.push(parsed);
      } catch (error) {
        failure = error;
        done = true;
      }
    },
  });
  try {
    for (;;) {
      let read: ReadableStreamReadResult<Uint8Array>;
      try {
        read = await reader.read();
      } catch (error) {
        if (signal.aborted) return;
        throw error;
      }
      onRead();
      if (read.done) {
        // A last event without its blank line still counts, as in the SDK.
        parser.feed(`${decoder.decode()}\n\n`);
      } else {
        parser.feed(decoder.decode(read.value, { stream: true }));
      }
      if (batch.length > 0) {
        const ready = batch;
        batch = [];
        yield ready;
      }
      if (failure !== undefined) throw failure;
      if (read.done) return;
    }
  } finally {
    // Also on an early `return()` or a throw: releases the connection.
    reader.cancel().catch(() => undefined);
  }
}
