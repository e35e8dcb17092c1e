import { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import type { ProviderFailure } from '../model/to-model-error.ts';
import { retryAfterMs } from '../model/retry-after.ts';

/**
 * What an `openai` SDK error says, for `toModelError`: a user abort, an HTTP status with the
 * provider's message (from the error body), an error event in the stream (an `APIError` without
 * status), or a transport failure (`APIConnectionError` and anything else).
 */
export function openaiFailure(error: unknown, streamOpened: boolean): ProviderFailure {
  if (error instanceof APIUserAbortError) {
    return { aborted: true, fromProvider: false, streamOpened };
  }
  if (error instanceof APIError && !(error instanceof APIConnectionError)) {
    const body: unknown = error.error;
    const bodyMessage =
      typeof body === 'object' &&
      body !== null &&
      'message' in body &&
      typeof body.message === 'string'
        ? body.message
        : undefined;
    return {
      aborted: false,
      status: error.status,
      providerMessage: bodyMessage ?? error.message.replace(/^\d{3}\s+/, ''),
      fromProvider: true,
      streamOpened,
      retryAfterMs: retryAfterMs(error.headers),
    };
  }
  return { aborted: false, fromProvider: false, streamOpened };
}
