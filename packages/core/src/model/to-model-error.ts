import { messageOf } from '../errors/message-of.ts';
import { SwitchboardError } from '../errors/switchboard-error.ts';

/** What a provider adapter knows about a failure, read from its SDK's error types. */
export interface ProviderFailure {
  /** True when the SDK reports that the request was aborted by the caller. */
  aborted: boolean;
  /** The HTTP status the provider answered, when it answered with one. */
  status?: number | undefined;
  /** The provider's own explanation (without an HTTP status prefix), when there is one. */
  providerMessage?: string | undefined;
  /**
   * True when the failure came from the provider's API itself (an HTTP error or an error event
   * it streamed), false for transport failures (connection refused, reset, cut).
   */
  fromProvider: boolean;
  /** True once the response stream had opened (headers received) before the failure. */
  streamOpened: boolean;
}

/** The message of a stream that stopped before its final event. */
export const INCOMPLETE_STREAM_MESSAGE =
  'The model stream ended before the answer was complete (the final event never arrived).';

/** A `model_error` for a stream that ended (quietly or not) before its final event. */
export function incompleteStreamError(cause?: unknown): SwitchboardError {
  const reason = cause instanceof Error && cause.message !== '' ? ` Cause: ${cause.message}` : '';
  return new SwitchboardError(
    'model_error',
    `${INCOMPLETE_STREAM_MESSAGE}${reason}`,
    cause === undefined ? undefined : { cause },
  );
}

function describeStatus(status: number, providerMessage: string): string {
  const detail = providerMessage === '' ? '' : `: ${providerMessage}`;
  if (status === 401) {
    return `The model provider rejected the credentials (HTTP 401)${detail}. Check the API key.`;
  }
  if (status === 403) {
    return `The model provider refused access to this model (HTTP 403)${detail}.`;
  }
  if (status === 429) {
    return `The model provider is rate limiting requests (HTTP 429) and the retries did not get through${detail}.`;
  }
  if (status >= 500) return `The model provider failed (HTTP ${status})${detail}.`;
  return `The model provider answered HTTP ${status}${detail}.`;
}

/**
 * Maps any failure of a provider call to a {@link SwitchboardError}: `aborted` when `signal`
 * aborted (or the SDK says so); `model_error` with `details: { status }` and a status-specific
 * message for HTTP errors (401 names the credentials, 429 the exhausted retries, 5xx the
 * provider); `model_error` for an error event in the stream; the incomplete-stream `model_error`
 * for a transport failure after the stream opened; `model_error` for anything else (e.g. the
 * connection was refused). A `SwitchboardError` passes through unchanged.
 */
export function toModelError(
  error: unknown,
  signal: AbortSignal,
  failure: ProviderFailure,
): SwitchboardError {
  if (signal.aborted || failure.aborted) {
    return new SwitchboardError('aborted', 'The model request was aborted.', { cause: error });
  }
  if (error instanceof SwitchboardError) return error;
  const providerMessage = (failure.providerMessage ?? '').trim();
  if (failure.status !== undefined) {
    return new SwitchboardError('model_error', describeStatus(failure.status, providerMessage), {
      cause: error,
      details: { status: failure.status },
    });
  }
  if (failure.fromProvider) {
    return new SwitchboardError(
      'model_error',
      `The model provider reported an error${providerMessage === '' ? '' : `: ${providerMessage}`}.`,
      { cause: error },
    );
  }
  if (failure.streamOpened) return incompleteStreamError(error);
  return new SwitchboardError('model_error', `The model request failed: ${messageOf(error)}`, {
    cause: error,
  });
}
