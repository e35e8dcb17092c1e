import { SwitchboardError } from '../errors/switchboard-error.ts';
import type { HistoryStore, RunRecord } from '../history/history-store.ts';
import type { MessageItem } from '../vocabulary/items.ts';
import type { AppViewRef } from '../vocabulary/tool-ui.ts';
import { viewKey } from './model-items.ts';

/**
 * Model context an MCP Apps view sent (`ui/update-model-context`, spec 2026-01-26), for
 * `Agent.updateModelContextFromApp`.
 */
export interface AppModelContextInput {
  threadId: string;
  /** The view that sent it; the model reads it labelled with this view. */
  view: AppViewRef;
  /** The text blocks of `params.content`, joined with a newline. */
  text: string;
  /** `params.structuredContent`; the model reads it as JSON after the text. */
  structuredContent?: Record<string, unknown>;
}

/** The history item that keeps a view's model context. */
export function appContextItem(input: AppModelContextInput): MessageItem {
  const json = input.structuredContent === undefined ? '' : JSON.stringify(input.structuredContent);
  return {
    type: 'message',
    role: 'user',
    content: [input.text, json].filter((part) => part !== '').join('\n'),
    appContext: { ...input.view },
  };
}

/**
 * Model context of views whose thread was busy when it came (a run running or paused: a row
 * written after those would end or hide them), latest per view, kept in memory until the
 * thread is idle again.
 */
export class HeldModelContext {
  readonly #held = new Map<string, Map<string, MessageItem>>();

  hold(threadId: string, item: MessageItem & { appContext: AppViewRef }): void {
    let views = this.#held.get(threadId);
    if (views === undefined) {
      views = new Map();
      this.#held.set(threadId, views);
    }
    views.delete(viewKey(item.appContext));
    views.set(viewKey(item.appContext), item);
  }

  has(threadId: string): boolean {
    return this.#held.has(threadId);
  }

  /** Takes the thread's held items (oldest first), or `[]`. */
  take(threadId: string): MessageItem[] {
    const views = this.#held.get(threadId);
    this.#held.delete(threadId);
    return [...(views?.values() ?? [])];
  }
}

/**
 * Stores `items` as a completed run row of their own after `runs` (which must not end with a
 * running or paused row), carrying the thread's activated deferred tools on.
 *
 * @throws SwitchboardError `history_error` (from the store); `run_claimed` when a row of that id
 *   exists (never for a fresh id).
 */
export async function writeContextRow(
  history: HistoryStore,
  threadId: string,
  runs: readonly RunRecord[],
  items: readonly MessageItem[],
  signal?: AbortSignal,
): Promise<void> {
  const now = Date.now();
  const row: RunRecord = {
    runId: crypto.randomUUID(),
    threadId,
    status: 'completed',
    items: [...items],
    state: { version: 1, pending: [], activatedTools: runs.at(-1)?.state?.activatedTools ?? [] },
    createdAt: now,
    updatedAt: now,
  };
  const written = await history.compareAndSetRun(row, 0, signal === undefined ? {} : { signal });
  if (!written.written) {
    throw new SwitchboardError('run_claimed', 'A run row of that id exists already.', {
      details: { runId: row.runId, status: written.current?.status },
    });
  }
}
