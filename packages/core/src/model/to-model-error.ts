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
  /** The wait the provider asked for, in ms (see `retryAfterMs`), when it said. */
  retryAfterMs?: number | undefined;
  /**
   * True when the provider's error type says it is overloaded (Anthropic `overloaded_error`);
   * HTTP 529 and an "overloaded" / "unavailable" message count without it.
   */
  overloaded?: boolean | undefined;
}

const OVERLOADED_MESSAGE = /\boverloaded\b|\bunavailable\b/i;

/** The retry facts of a `model_error` (see `SwitchboardErrorDetails['model_error']`). */
function retryFacts(
  failure: ProviderFailure,
  providerMessage: string,
): { retryAfterMs?: number; overloaded?: boolean } {
  const overloaded =
    failure.overloaded === true ||
    failure.status === 529 ||
    OVERLOADED_MESSAGE.test(providerMessage);
  return {
    ...(failure.retryAfterMs === undefined ? {} : { retryAfterMs: failure.retryAfterMs }),
    ...(overloaded ? { overloaded } : {}),
  };
}

/** The message of a stream that stopped before its final event. */
export const INCOMPLETE_STREAM_MESSAGE =
  'The model stream ended before the answer was complete (the final event never arrived).';

/**
 * A `model_error` for a stream that ended (quietly or not) before its final event; `transient`,
 * so a retry policy may try again when nothing of the answer was shown yet.
 */
export function incompleteStreamError(cause?: unknown): SwitchboardError {
  const reason = cause instanceof Error && cause.message !== '' ? ` Cause: ${cause.message}` : '';
  return new SwitchboardError('model_error', `${INCOMPLETE_STREAM_MESSAGE}${reason}`, {
    ...(cause === undefined ? {} : { cause }),
    details: { transient: true },
  });
}

function describeStatus(status: number, providerMessage: string): string {
  const detail = providerMessage === '' ? '' : `: ${providerMessage}`;
  if (status === 401) {
    return `The model provider rejected the credentials (HTTP 401)${detail}. Check the API key.`;
  }
  if (status === 403) {
    return `The model provider refused access to this model (HTTP 403)${detail}.`;
  }
  if (status === 429) return `The model provider is rate limiting requests (HTTP 429)${detail}.`;
  if (status === 529) return `The model provider is overloaded (HTTP 529)${detail}.`;
  if (status >= 500) return `The model provider failed (HTTP ${status})${detail}.`;
  return `The model provider answered HTTP ${status}${detail}.`;
}

/**
 * Maps any failure of a provider call to a {@link SwitchboardError}: `aborted` when `signal`
 * aborted (or the SDK says so); `model_error` with `details: { status }` and a status-specific
 * message for HTTP errors (401 names the credentials, 429 the rate limit, 529 the overload, 5xx
 * the provider); `model_error` for an error event in the stream; the incomplete-stream
 * `model_error` for a transport failure after the stream opened; `model_error` for anything else
 * (e.g. the connection was refused). The details also carry what a retry policy reads:
 * `retryAfterMs`, `overloaded`, and `transient` for everything but an HTTP error answer. A
 * `SwitchboardError` passes through unchanged.
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
      details: { status: failure.status, ...retryFacts(failure, providerMessage) },
    });
  }
  if (failure.fromProvider) {
    return new SwitchboardError(
      'model_error',
      `The model provider reported an error${providerMessage === '' ? '' : `: ${providerMessage}`}.`,
      { cause: error, details: { transient: true, ...retryFacts(failure, providerMessage) } },
    );
  }
  if (failure.streamOpened) return incompleteStreamError(error);
  return new SwitchboardError('model_error', `The model request failed: ${messageOf(error)}`, {
    cause: error,
    details: { transient: true },
  });
}
