import { SwitchboardError } from '../errors/switchboard-error.ts';
import { linkSignals, type LinkedSignal } from '../internal/linked-signal.ts';

/**
 * The clock of one MCP tool call: an idle timeout that progress resets and an absolute cap,
 * both stopped while a human answers an elicitation (that time is the human's, not the
 * server's). When either runs out the call's `signal` aborts with a `timeout` error.
 *
 * Both limits share one `setTimeout`, armed for the nearer deadline: progress only moves the
 * idle deadline, and a timer that fires before a deadline that moved arms itself again. A call
 * that streams progress thus costs no timer per progress notification.
 */
export class CallTimer {
  readonly signal: AbortSignal;
  readonly #link: LinkedSignal;
  readonly #idleMs: number;
  #totalLeftMs: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Deadlines while running, ms since the epoch. */
  #idleDeadline = 0;
  #totalDeadline = 0;
  #runningSince = 0;
  #paused = 0;

  /**
   * @param idleMs - time without a result or progress before the call fails.
   * @param totalMs - cap on the call's whole running time (human time excluded).
   * @param outer - the run's signal; aborting it aborts the call. The listener this adds to it
   *   is removed by {@link dispose} (or when either signal aborts).
   */
  constructor(idleMs: number, totalMs: number, outer: AbortSignal) {
    this.#idleMs = idleMs;
    this.#totalLeftMs = totalMs;
    this.#link = linkSignals(outer);
    this.signal = this.#link.signal;
    // No `abort` listener to clear the timer: a fire after an abort does nothing, `#expire`
    // and `dispose` (which every call reaches) clear it.
    this.#start();
  }

  /** Progress arrived: the idle timeout starts again. */
  touch(): void {
    if (this.#paused > 0 || this.signal.aborted) return;
    this.#idleDeadline = Date.now() + this.#idleMs;
  }

  /** A human is answering: stop both clocks until {@link resume}. Nested pauses are counted. */
  pause(): void {
    if (this.#paused++ > 0) return;
    this.#totalLeftMs -= Date.now() - this.#runningSince;
    this.#clear();
  }

  /** The human answered: the clocks run again (the idle one from zero). */
  resume(): void {
    if (--this.#paused > 0 || this.signal.aborted) return;
    this.#start();
  }

  /** Stops the clocks for good (the call settled) and unlinks from the outer signal. */
  dispose(): void {
    this.#clear();
    this.#link.dispose();
  }

  #start(): void {
    if (this.signal.aborted) return;
    const now = Date.now();
    this.#runningSince = now;
    this.#idleDeadline = now + this.#idleMs;
    this.#totalDeadline = now + Math.max(0, this.#totalLeftMs);
    this.#arm(now);
  }

  /** Sets the one timer for the nearer deadline. */
  #arm(now: number): void {
    const due = Math.min(this.#idleDeadline, this.#totalDeadline);
    this.#timer = setTimeout(() => this.#fire(), Math.max(0, due - now));
  }

  #fire(): void {
    this.#timer = undefined;
    if (this.#paused > 0 || this.signal.aborted) return;
    const now = Date.now();
    // On a tie the idle limit is named, as when each limit had its own timer.
    if (now >= this.#idleDeadline && this.#idleDeadline <= this.#totalDeadline) {
      this.#expire('idle');
    } else if (now >= this.#totalDeadline) {
      this.#expire('total');
    } else {
      this.#arm(now);
    }
  }

  #expire(which: 'idle' | 'total'): void {
    const message =
      which === 'idle'
        ? `The tool call got no result or progress for ${this.#idleMs} ms.`
        : 'The tool call ran longer than its total time limit.';
    this.#clear();
    this.#link.abort(new SwitchboardError('timeout', message, { details: { which } }));
  }

  #clear(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
