import type { Chunk } from '../agent/chunks.ts';
import type { RunHandle } from '../agent/run-result.ts';
import { SSE_EVENTS, chunkToWire, resultToWire } from '../remote/agent-wire.ts';

/** Limits of one chunk stream (the handler's options, resolved). */
export interface ChunkStreamLimits {
  /** A comment line this often keeps proxies and the client's idle limit from closing it (ms). */
  heartbeatMs: number;
  /** The stream ends after this long (ms); the client reopens it from its last `sequence`. */
  maxStreamMs: number;
}

/**
 * A run's chunks as a `text/event-stream` body: every chunk with `sequence > after` as a `chunk`
 * event whose `id` is its sequence (so `Last-Event-ID` resumes it), then one `result` event with
 * the run's result, then the end. The run's handle replays from its first chunk, so a reader
 * opening late, or again after a drop, loses nothing; one that stops reading (`cancel`) leaves
 * the run alone.
 */
export function chunkEventStream(
  handle: RunHandle,
  after: number,
  limits: ChunkStreamLimits,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let closed = false;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let deadline: ReturnType<typeof setTimeout> | undefined;
  let wakeDeadline: () => void = () => undefined;
  const ended = new Promise<'ended'>((resolve) => (wakeDeadline = () => resolve('ended')));
  const stopTimers = () => {
    closed = true;
    clearInterval(heartbeat);
    clearTimeout(deadline);
    wakeDeadline();
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (text: string) => {
        if (!closed) controller.enqueue(encoder.encode(text));
      };
      heartbeat = setInterval(() => send(': heartbeat\n\n'), limits.heartbeatMs);
      deadline = setTimeout(stopTimers, limits.maxStreamMs);
      // Tells the client how soon to come back if it uses EventSource's own retry.
      send('retry: 1000\n\n');
      void (async () => {
        const chunks = handle.chunks[Symbol.asyncIterator]();
        try {
          for (;;) {
            // Raced with the stream's end, so a cancelled or expired stream stops waiting for a
            // run that may have no chunk for a long while (a pause, a slow tool).
            const next = await Promise.race([chunks.next(), ended]);
            if (next === 'ended' || closed) return;
            if (next.done === true) break;
            const chunk: Chunk = next.value;
            if (chunk.sequence <= after) continue;
            send(
              `event: ${SSE_EVENTS.chunk}\nid: ${chunk.sequence}\ndata: ${JSON.stringify(chunkToWire(chunk))}\n\n`,
            );
          }
          const result = await Promise.race([handle.result(), ended]);
          if (result === 'ended' || closed) return;
          send(`event: ${SSE_EVENTS.result}\ndata: ${JSON.stringify(resultToWire(result))}\n\n`);
        } finally {
          if (!closed) {
            stopTimers();
            controller.close();
          } else {
            // The deadline passed: end the body so the client reconnects.
            try {
              controller.close();
            } catch {
              // Already closed by a cancel.
            }
          }
        }
      })();
    },
    cancel() {
      stopTimers();
    },
  });
}
