import { SwitchboardError } from '../errors/switchboard-error.ts';

/**
 * A request's JSON body, read up to `maxBytes` (a longer body is refused as it streams, before
 * it is all in memory).
 *
 * @throws SwitchboardError `invalid_input` with `details.reason`: `body_too_large`, or
 *   `invalid_json` when the body is not JSON.
 */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body !== null) {
    const reader = request.body.getReader();
    for (;;) {
      const read = await reader.read();
      if (read.done) break;
      size += read.value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge(maxBytes);
      }
      chunks.push(read.value);
    }
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as unknown;
  } catch (error) {
    throw new SwitchboardError('invalid_input', 'The request body is not JSON.', {
      cause: error,
      details: { reason: 'invalid_json' },
    });
  }
}

function tooLarge(maxBytes: number): SwitchboardError {
  return new SwitchboardError(
    'invalid_input',
    `The request body is larger than ${maxBytes} bytes.`,
    { details: { reason: 'body_too_large' } },
  );
}
