/**
 * Benchmark 12's measurement, shared by the Node side (memory, JSONL, PostgreSQL) and the
 * Chromium page (IndexedDB): seed a thread of N items, then time a run start — from
 * `agent.execute()` until the model's `stream()` is called with the request.
 */
import { Agent, type HistoryStore, type Item, type Model, type RunRecord } from '@switchboard/core';
// Internal, not exported by the package: the real class the run builds each request's items with.
import { BranchItems } from '../../packages/core/src/agent/branch-items.ts';

/** Items per seeded run: a user message, four tool calls with their outputs, an answer. */
export const ITEMS_PER_RUN = 10;

/** The run rows of a seeded thread of `items` items (a multiple of {@link ITEMS_PER_RUN}). */
export function seededRuns(threadId: string, items: number): RunRecord[] {
  const runs: RunRecord[] = [];
  const base = Date.now() - items * 1000;
  for (let index = 0; index < items / ITEMS_PER_RUN; index += 1) {
    const runItems: Item[] = [
      {
        type: 'message',
        role: 'user',
        content: `Question ${index}: what is the weather in city ${index}?`,
      },
    ];
    for (let call = 0; call < 4; call += 1) {
      const callId = `call_${index}_${call}`;
      runItems.push(
        {
          type: 'function_call',
          callId,
          name: 'lookup',
          arguments: JSON.stringify({ city: index, part: call }),
        },
        {
          type: 'function_call_output',
          callId,
          output: {
            text: `Result ${call} for city ${index}: 21 degrees, light wind from the west.`,
          },
        },
      );
    }
    runItems.push({
      type: 'message',
      role: 'assistant',
      content: `City ${index} is at 21 degrees with a light west wind.`,
    });
    runs.push({
      runId: `${threadId}-run-${index}`,
      threadId,
      status: 'completed',
      items: runItems,
      createdAt: base + index * 1000,
      updatedAt: base + index * 1000 + 1,
      parentRunId: index === 0 ? null : `${threadId}-run-${index - 1}`,
      version: 1,
    });
  }
  return runs;
}

/** Saves the seeded thread; returns the id of its last run (the branch every trial follows). */
export async function seedThread(
  history: HistoryStore,
  threadId: string,
  items: number,
): Promise<string> {
  const runs = seededRuns(threadId, items);
  for (const run of runs) await history.saveRun(run);
  return runs.at(-1)!.runId;
}

/**
 * A model double that records when `stream()` is called and how many items it was sent, then
 * answers at once.
 */
export class RecordingModel implements Model {
  readonly provider = 'bench';
  readonly modelId = 'recording';
  calledAt = 0;
  items = 0;
  async *stream(request: Parameters<Model['stream']>[0]): ReturnType<Model['stream']> {
    this.calledAt = performance.now();
    this.items = request.items.length;
    yield { type: 'text.delta', delta: 'ok' };
    yield { type: 'done', usage: { inputTokens: 0, outputTokens: 0 } };
  }
}

/** The new message of every trial's run (and of every request built apart). */
const NEW_MESSAGE = 'One more question, please.';

/**
 * The part of a run start that grows with the thread, measured apart (issue 17 allows it: the
 * model request carries the whole branch, context is not truncated): the request's item array,
 * `BranchItems.with` of the branch plus the new message — the one copy of the branch a run start
 * makes (packages/core/src/agent/run.ts, `#callModel`), O(items), ≈ 80 KB of pointers at 10,000
 * items. Each request owns its array, so that a model adapter that changes its items cannot
 * change the thread cache.
 */
export class RequestBuild {
  readonly #branch: BranchItems;

  /** `runs`: the branch's rows, root first (the seeded thread's). */
  constructor(runs: readonly RunRecord[]) {
    this.#branch = BranchItems.of(runs.flatMap((run) => run.items));
  }

  /**
   * ms to build one request's item array as a run start does (`with` a new message; the branch
   * ends where its list does, as the thread cache's does in the trials). Time it in Node:
   * Chromium's clock ticks in 0.1 ms.
   */
  time(): number {
    const start = performance.now();
    const items = this.#branch.with([{ type: 'message', role: 'user', content: NEW_MESSAGE }]);
    const ms = performance.now() - start;
    // Read after timing: the build is used, so it cannot be optimised away.
    if (items.length !== this.#branch.length + 1) throw new Error('request items: wrong count');
    return ms;
  }
}

/** One measured run start. */
export interface StartTrial {
  /** `execute()` → `stream()` called, in ms. */
  ms: number;
  /** Items in the model request. */
  items: number;
  status: string;
}

/**
 * Times one run start on `threadId` after `parentRunId` (each trial branches from the seeded
 * leaf, so every trial's request has the same items). `agent` is warm (it has the thread open,
 * as after `AgentChat.load()`) or new (cold).
 */
export async function timeRunStart(
  agent: Agent,
  model: RecordingModel,
  threadId: string,
  parentRunId: string,
): Promise<StartTrial> {
  const start = performance.now();
  const result = await agent.execute({ threadId, parentRunId, messages: NEW_MESSAGE }).result();
  return { ms: model.calledAt - start, items: model.items, status: result.status };
}

/** A warm agent over `history`: it has read `threadId` (as `AgentChat.load()` does). */
export async function warmAgent(
  history: HistoryStore,
  threadId: string,
): Promise<{ agent: Agent; model: RecordingModel }> {
  const model = new RecordingModel();
  const agent = new Agent({ name: 'bench', model, history });
  await agent.loadThread(threadId);
  return { agent, model };
}
