import type { SwitchboardError } from '../errors/switchboard-error.ts';
import type { Item, Usage } from '../vocabulary/items.ts';
import type { Chunk } from './chunks.ts';
import type { Interrupt } from '../vocabulary/interrupts.ts';

/**
 * How a run ended (docs/architecture.md, "The life of a run"). `paused` arrives with
 * human-in-the-loop interrupts.
 */
export type RunOutcome = 'completed' | 'paused' | 'failed' | 'cancelled';

/** The settled result of a run. */
export interface RunResult {
  runId: string;
  threadId: string;
  status: RunOutcome;
  /** Items the run added to the thread, in order. */
  output: Item[];
  /** The held calls when `status` is `paused`; otherwise empty. */
  interrupts: Interrupt[];
  /** Token usage summed over every model call of the run. */
  usage: Usage;
  /**
   * Set when `status` is `failed`; also on a `paused` result whose resolutions were invalid
   * (code `invalid_resolution`: nothing was sent, the interrupts still wait).
   */
  error?: SwitchboardError;
}

/**
 * The handle `agent.execute()` returns at once, before the run has started streaming.
 * `chunks` can be iterated by several consumers; each sees every chunk from the first.
 */
export interface RunHandle {
  /**
   * The run's id. For a resume it is the paused run's id, known once `run.started` was emitted
   * (an empty string before).
   */
  readonly runId: string;
  readonly threadId: string;
  readonly chunks: AsyncIterable<Chunk>;
  /** Resolves when the run ends, whatever the outcome; never rejects. */
  result(): Promise<RunResult>;
  /**
   * Aborts the model stream and every tool call this run owns (calls of a paused run that this
   * resume continued included); the run ends `cancelled`. After the run has paused it does
   * nothing: the pause stays stored and answerable. Before a resume has claimed the run, the
   * resume ends `cancelled` and the pause stays as it was. Idempotent.
   */
  stop(): void;
}
