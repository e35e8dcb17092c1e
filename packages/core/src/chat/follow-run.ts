import type { RunRecord } from '../history/history-store.ts';

/** How often a chat reads a thread whose run another client runs (ms). */
export const FOLLOW_INTERVAL_MS = 1_000;

/** What {@link followRun} needs. */
export interface FollowRunOptions {
  /**
   * Reads the thread's rows, recovering a run whose lease expired or whose page is gone
   * (`Agent.loadThread`): so the following ends one read after the other page closed (its
   * presence lock is free), and at the latest one lease after a client stopped renewing.
   */
  load(signal: AbortSignal): Promise<RunRecord[]>;
  /** Called with the rows of every read, the last one included. */
  onRows(runs: RunRecord[]): void;
  signal: AbortSignal;
  /** Default {@link FOLLOW_INTERVAL_MS}. */
  intervalMs?: number;
}

/**
 * Follows a thread whose last run is `running` in another client (another tab, process or
 * `Agent`) until that run leaves `running` — completed, paused, failed, cancelled, or recovered
 * once its lease expired — by reading the thread every `intervalMs`, and sooner when the lease
 * is about to expire. Polling the store rather than a notification: it works the same for every
 * `HistoryStore` (IndexedDB across tabs, JSONL across processes). Resolves with the last
 * rows read, or `undefined` once `signal` aborted.
 *
 * @throws what `load` throws (a store failure).
 */
export async function followRun(options: FollowRunOptions): Promise<RunRecord[] | undefined> {
  const { signal, intervalMs = FOLLOW_INTERVAL_MS } = options;
  while (!signal.aborted) {
    let runs: RunRecord[];
    try {
      runs = await options.load(signal);
    } catch (error) {
      if (signal.aborted) return undefined;
      throw error;
    }
    if (signal.aborted) return undefined;
    options.onRows(runs);
    const last = runs.at(-1);
    if (last?.status !== 'running') return runs;
    // Read again just after the lease would expire (recovery is then possible), or sooner.
    const untilExpiry = (last.lease?.expiresAt ?? 0) - Date.now() + 25;
    await sleep(Math.max(10, Math.min(intervalMs, untilExpiry)), signal);
  }
  return undefined;
}

/**
 * At most one {@link followRun} at a time, stoppable: what a chat holds while it follows another
 * client's run.
 */
export class RunFollower {
  #controller: AbortController | undefined;

  /**
   * Starts following, unless already following. `onError` gets a failure of `load`, unless
   * the following was stopped (or restarted) meanwhile.
   */
  start(options: Omit<FollowRunOptions, 'signal'>, onError: (error: unknown) => void): void {
    if (this.#controller !== undefined) return;
    const controller = new AbortController();
    this.#controller = controller;
    followRun({ ...options, signal: controller.signal }).then(
      () => {
        if (this.#controller === controller) this.#controller = undefined;
      },
      (error: unknown) => {
        if (this.#controller !== controller) return;
        this.#controller = undefined;
        onError(error);
      },
    );
  }

  /** Stops following (a no-op when not following). */
  stop(): void {
    this.#controller?.abort();
    this.#controller = undefined;
  }
}

/** Waits `ms`, or until `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
