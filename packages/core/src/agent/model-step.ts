import type { ModelFailureRecord } from '../history/history-store.ts';
import type { FunctionCallItem, Item, Usage } from '../vocabulary/items.ts';
import type { RunJournal } from './run-journal.ts';
import type { StepFailure } from './step-runner.ts';

/**
 * The result of one model step (a model call with its retries and fallbacks): the answer or the
 * failure, and what the step added to the run's journal, so that a replayed step (its result read
 * back from a durable journal) leaves the journal as the real call did. JSON only.
 */
export interface ModelStepRecord {
  answer?: {
    calls: FunctionCallItem[];
    text: string;
    usage: Usage | undefined;
    /** The model that answered: `agent.model` (0), then the fallbacks. */
    modelIndex: number;
  };
  failure?: StepFailure;
  /** Items the step appended: reasoning and assistant text (also of a broken stream). */
  items: Item[];
  /** Usage reports, in order. */
  usage: Usage[];
  /** Failed attempts that were retried or handed on. */
  failures: ModelFailureRecord[];
}

/**
 * Applies a replayed model step to `journal`: its items, usage and failed attempts. Its chunks
 * (deltas, retries) are live-only and are not emitted again.
 */
export function replayModelStep(journal: RunJournal, record: ModelStepRecord): void {
  journal.append(record.items);
  for (const usage of record.usage) journal.addUsage(usage);
  for (const failure of record.failures) journal.noteModelFailure(failure);
}
