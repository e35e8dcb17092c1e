import { SwitchboardError } from '../errors/switchboard-error.ts';
import { linkSignals, type LinkedSignal } from '../internal/linked-signal.ts';

/** Default of the model adapters' `idleTimeoutMs`: longest gap between stream events, in ms. */
export const DEFAULT_MODEL_IDLE_TIMEOUT_MS = 120_000;
/** Default of the model adapters' `requestTimeoutMs`: cap on one whole model call, in ms. */
export const DEFAULT_MODEL_REQUEST_TIMEOUT_MS = 600_000;

/** The time limits every model adapter takes (OpenAI Chat, OpenAI Responses, Anthropic). */
export interface ModelTimeouts {
  /**
   * Longest wait, in ms, for the next sign of life of one model call: the response headers
   * after the request went out, then each stream event after the previous one. When it runs
   * out the request is aborted (the SDK does not retry an aborted request) and the stream
   * throws a `SwitchboardError` with code `timeout` (`details.which: 'idle'`), so a run ends
   * with `run.failed`. Default 120 000 (2 minutes). Raise it for models that think for longer
   * without streaming anything.
   */
  idleTimeoutMs?: number;
  /**
   * Cap, in ms, on one whole model call: every SDK retry and the whole stream. When it runs out
   * the stream throws a `SwitchboardError` with code `timeout` (`details.which: 'request'`).
   * Default 600 000 (10 minutes).
   */
  requestTimeoutMs?: number;
}

/**
 * The clock of one model call: an idle timeout reset by every stream event, and a cap on the
 * whole call. Hand {@link signal} to the SDK instead of the caller's signal: it aborts when
 * the caller's does or when a limit runs out, and its link to the caller's signal is removed by
 * {@link dispose} (the SDKs add an `abort` listener to the signal they are given and never
 * remove it).
 *
 * @throws SwitchboardError `invalid_input` when a timeout is not a positive number.
 */
export class ModelRequestClock {
  /** The signal for the SDK request. */
  readonly signal: AbortSignal;
  readonly #link: LinkedSignal;
  readonly #idleMs: number;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #requestTimer: ReturnType<typeof setTimeout> | undefined;
  #expired: SwitchboardError | undefined;

  constructor(outer: AbortSignal, timeouts: ModelTimeouts) {
    const { idleTimeoutMs, requestTimeoutMs } = resolveModelTimeouts(timeouts);
    this.#idleMs = idleTimeoutMs;
    const requestMs = requestTimeoutMs;
    this.#link = linkSignals(outer);
    this.signal = this.#link.signal;
    if (this.signal.aborted) return;
    this.#requestTimer = setTimeout(
      () =>
        this.#expire(
          new SwitchboardError(
            'timeout',
            `The model call took longer than its request timeout (${requestMs} ms).`,
            { details: { which: 'request', timeoutMs: requestMs } },
          ),
        ),
      requestMs,
    );
    this.touch();
  }

  /** Why the clock aborted the request, once a limit ran out. */
  get expired(): SwitchboardError | undefined {
    return this.#expired;
  }

  /** A sign of life (headers, a stream event): the idle timeout starts again. */
  touch(): void {
    if (this.signal.aborted) return;
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(
      () =>
        this.#expire(
          new SwitchboardError(
            'timeout',
            `The model sent nothing for ${this.#idleMs} ms (idle timeout); the request was abandoned.`,
            { details: { which: 'idle', timeoutMs: this.#idleMs } },
          ),
        ),
      this.#idleMs,
    );
  }

  /** Stops both clocks and unlinks from the caller's signal. Idempotent. */
  dispose(): void {
    clearTimeout(this.#idleTimer);
    clearTimeout(this.#requestTimer);
    this.#link.dispose();
  }

  #expire(error: SwitchboardError): void {
    if (this.signal.aborted) return;
    this.#expired = error;
    this.dispose();
    this.#link.abort(error);
  }
}

/**
 * `timeouts` with the defaults filled in.
 *
 * @throws SwitchboardError `invalid_input` when a timeout is not a positive number of ms.
 */
export function resolveModelTimeouts(timeouts: ModelTimeouts): Required<ModelTimeouts> {
  return {
    idleTimeoutMs: positive(timeouts.idleTimeoutMs, DEFAULT_MODEL_IDLE_TIMEOUT_MS, 'idleTimeoutMs'),
    requestTimeoutMs: positive(
      timeouts.requestTimeoutMs,
      DEFAULT_MODEL_REQUEST_TIMEOUT_MS,
      'requestTimeoutMs',
    ),
  };
}

/**
 * The per-attempt `timeout` to hand the provider SDK: a whole number of ms a little past
 * `requestTimeoutMs`, so that the SDK's own timer (which it follows with a retry) never fires
 * before the clock's, which aborts the request for good.
 */
export function sdkTimeoutMs(timeouts: ModelTimeouts): number {
  return Math.ceil(resolveModelTimeouts(timeouts).requestTimeoutMs) + 1_000;
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!(value > 0) || !Number.isFinite(value)) {
    throw new SwitchboardError(
      'invalid_input',
      `${name} must be a positive number of milliseconds, got ${String(value)}.`,
    );
  }
  return value;
}
