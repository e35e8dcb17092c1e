import type { HistoryStore, RunRecord } from '../history/history-store.ts';
import type { Tool } from '../tools/tool-types.ts';
import { subAgentOf } from './agent-as-tool.ts';
import { abandonPausedRun, type LiveCalls } from './resume-run.ts';
import { writeOtherRun } from './run-journal.ts';
import type { ThreadCache } from './thread-cache.ts';

/**
 * Closes the thread's paused run without starting another (see `Agent.abandonPause`): its
 * waiting calls get `unanswered` in one compare-and-set of its row, the calls held open for it
 * are cancelled, and the nested pauses it waited on are closed the same way. Returns false when
 * the thread has no paused run.
 *
 * @throws SwitchboardError `run_claimed` when another client resumed or closed the pause
 *   meanwhile (nothing written); `history_error`.
 */
export async function abandonPause(
  threadId: string,
  setup: {
    history: HistoryStore;
    threads: Pick<ThreadCache, 'load'>;
    liveCalls: LiveCalls;
    tools: readonly Tool[];
  },
  signal?: AbortSignal,
): Promise<boolean> {
  const paused = (await setup.threads.load(threadId, signal ? { signal } : {})).at(-1);
  if (paused?.status !== 'paused') return false;
  const writer = {
    writeOther: (row: RunRecord, version: number) => writeOtherRun(setup.history, row, version),
  };
  await abandonPausedRun(writer, paused, setup.liveCalls);
  await abandonNestedPauses(paused, setup.tools);
  return true;
}

/**
 * After `paused` was abandoned: each of its calls that waited on a sub-agent's pause
 * (`Interrupt.nested`) closes that pause too, so the nested run's calls get their `unanswered`
 * output as well (docs/architecture.md, "Invariants"). Best effort per call: a nested pause
 * another client already closed or resumed stays as that client left it.
 */
export async function abandonNestedPauses(
  paused: RunRecord,
  tools: readonly Tool[],
): Promise<void> {
  for (const entry of paused.state?.pending ?? []) {
    const nested = entry.interrupt.nested;
    if (nested === undefined) continue;
    const subAgent = subAgentOf(tools.find((candidate) => candidate.name === entry.call.name));
    try {
      await subAgent?.abandonPause(nested.threadId);
    } catch {
      // Resumed or closed by another client meanwhile: its own run answers its calls.
    }
  }
}
