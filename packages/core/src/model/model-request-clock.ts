import { SwitchboardError } from '../errors/switchboard-error.ts';
import { linkSignals, type LinkedSignal } from '../internal/linked-signal.ts';
import { throwIfOffline } from '../internal/offline.ts';
import type { ModelEvent } from './model.ts';

/** Default of the model adapters' `idleTimeoutMs`: longest gap between stream events, in ms. */
export const DEFAULT_MODEL_IDLE_TIMEOUT_MS = 120_000;
/** Default of the model adapters' `requestTimeoutMs`: cap on one whole model call, in ms. */
export const DEFAULT_MODEL_REQUEST_TIMEOUT_MS = 600_000;

/** Default of the model adapters' `waitingNoticeMs`: wait for response headers before saying so, in ms. */
export const DEFAULT_MODEL_WAITING_NOTICE_MS = 4_000;

/** The time limits every model adapter takes (OpenAI Chat, OpenAI Responses, Anthropic). */
export interface ModelTimeouts {
  /**
   * How long, in ms, a model call may go without response headers before the stream says so
   * with a `response.waiting` event (a "no response headers yet" clock). It does not abort the
   * request — a provider may be slow to start a big request — the request keeps waiting up to
   * `idleTimeoutMs` / `requestTimeoutMs`. A request that never got a response start is usually
   * queued in the browser behind other requests to the same host (6 connections per host over
   * HTTP/1.1; other tabs' long-lived streams can hold them). Default 4 000 (4 seconds).
   */
  waitingNoticeMs?: number;
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
  readonly #waitingNoticeMs: number;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #requestTimer: ReturnType<typeof setTimeout> | undefined;
  #expired: SwitchboardError | undefined;

  constructor(outer: AbortSignal, timeouts: ModelTimeouts) {
    const { idleTimeoutMs, requestTimeoutMs, waitingNoticeMs } = resolveModelTimeouts(timeouts);
    this.#idleMs = idleTimeoutMs;
    this.#waitingNoticeMs = waitingNoticeMs;
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

  /**
   * Sends the request (`send`: the SDK call, which resolves when the response headers arrived)
   * inside a model stream: when it has not settled after `waitingNoticeMs`, yields one
   * `response.waiting` event for `host` and goes on waiting (the idle and request limits still
   * run). Use as `const stream = yield* clock.responseStart(host, () => client.create(...))`.
   *
   * @throws SwitchboardError `connection_refused` (`details.reason: 'offline'`) at once, without
   * sending, when the browser is offline (`navigator.onLine === false`): the request could not
   * leave the browser and would only wait for a limit. Otherwise what `send` rejects with.
   */
  async *responseStart<T>(host: string, send: () => Promise<T>): AsyncGenerator<ModelEvent, T> {
    throwIfOffline(host);
    const response = send();
    // A consumer that stops iterating during the notice never awaits `response` again.
    response.catch(() => undefined);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const notice = new Promise<typeof waiting>((resolve) => {
      timer = setTimeout(() => resolve(waiting), this.#waitingNoticeMs);
    });
    try {
      const first = await Promise.race([response, notice]);
      if (first !== waiting) return first as T;
      yield { type: 'response.waiting', host, waitedMs: this.#waitingNoticeMs };
      return await response;
    } finally {
      clearTimeout(timer);
    }
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
    waitingNoticeMs: positive(
      timeouts.waitingNoticeMs,
      DEFAULT_MODEL_WAITING_NOTICE_MS,
      'waitingNoticeMs',
    ),
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

/** What the notice timer resolves with (a value `response` never has). */
const waiting = Symbol('waiting');

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
