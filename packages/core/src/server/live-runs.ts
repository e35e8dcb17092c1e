import type { RunHandle } from '../agent/run-result.ts';

/** A run this handler started, by the client's handle id. */
export interface LiveRun {
  handle: RunHandle;
  threadId: string;
  /** When the run ended (ms since the epoch); `undefined` while it runs. */
  endedAt: number | undefined;
}

/**
 * The runs a handler started, by handle id, so that a client can read a run's chunks from any
 * `sequence` (again after a drop) and stop it. A run stays while it runs and `retainMs` after it
 * ended (a late or reconnecting reader replays it), then is forgotten; forgetting happens as
 * requests come, so the registry holds no timer.
 */
export class LiveRuns {
  readonly #runs = new Map<string, LiveRun>();
  readonly #retainMs: number;

  constructor(retainMs: number) {
    this.#retainMs = retainMs;
  }

  get(handleId: string): LiveRun | undefined {
    this.#forgetEnded();
    return this.#runs.get(handleId);
  }

  add(handleId: string, handle: RunHandle): LiveRun {
    const run: LiveRun = { handle, threadId: handle.threadId, endedAt: undefined };
    this.#runs.set(handleId, run);
    void handle.result().then(() => (run.endedAt = Date.now()));
    return run;
  }

  #forgetEnded(): void {
    const before = Date.now() - this.#retainMs;
    for (const [handleId, run] of this.#runs) {
      if (run.endedAt !== undefined && run.endedAt <= before) this.#runs.delete(handleId);
    }
  }
}
