import type { ThreadCursor } from './history-store.ts';

/**
 * The cursor form the in-package stores use for `HistoryStore.loadRunChanges`:
 * `<generation>:<change>`, where the generation names one life of a thread (a new one after it
 * is deleted and written again) and the change counts the thread's run writes.
 */
export function threadCursor(generation: string, change: number): ThreadCursor {
  return `${generation}:${change}`;
}

/**
 * The change number `since` continues from, or `undefined` when there is none to continue:
 * no cursor, a malformed one, or one of another generation (the caller then answers with the
 * whole thread).
 */
export function changeAfter(
  since: ThreadCursor | undefined,
  generation: string,
): number | undefined {
  if (since === undefined) return undefined;
  const separator = since.lastIndexOf(':');
  if (separator < 0 || since.slice(0, separator) !== generation) return undefined;
  const change = Number(since.slice(separator + 1));
  return Number.isSafeInteger(change) && change >= 0 ? change : undefined;
}
