import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { SwitchboardError } from '../errors/switchboard-error.ts';

/**
 * The events of a `text/event-stream` body, parsed by `eventsource-parser`, until the body ends.
 * Every read waits at most `idleTimeoutMs`: the server sends a comment (heartbeat) more often
 * than that, so a silent stream is a dead connection.
 *
 * @throws SwitchboardError `timeout` (`details.which: 'idle'`) when the stream is silent for
 *   `idleTimeoutMs`; `connection_lost` when reading fails (the connection broke).
 */
export async function* readServerSentEvents(
  body: ReadableStream<Uint8Array>,
  idleTimeoutMs: number,
): AsyncGenerator<EventSourceMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  try {
    for (;;) {
      const read = await readWithin(reader, idleTimeoutMs);
      if (read.done) return;
      parser.feed(decoder.decode(read.value, { stream: true }));
      while (events.length > 0) yield events.shift() as EventSourceMessage;
    }
  } finally {
    // Also on an early `return()`: releases the connection.
    reader.cancel().catch(() => undefined);
  }
}

async function readWithin(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  idleTimeoutMs: number,
): Promise<ReadableStreamReadResult<Uint8Array>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const idle = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new SwitchboardError(
            'timeout',
            `The agent server's event stream was silent for ${idleTimeoutMs} ms.`,
            { details: { which: 'idle', timeoutMs: idleTimeoutMs } },
          ),
        ),
      idleTimeoutMs,
    );
  });
  try {
    return await Promise.race([reader.read(), idle]);
  } catch (error) {
    if (error instanceof SwitchboardError) throw error;
    throw new SwitchboardError('connection_lost', "The agent server's event stream broke.", {
      cause: error,
    });
  } finally {
    clearTimeout(timer);
  }
}
