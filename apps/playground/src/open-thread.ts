/** The localStorage key of the thread the chat shows, so that a reload reopens it. */
export const openThreadStorageKey = 'switchboard.playground.open-thread';

/** The thread to show on load: the one open before the reload, else a new one. */
export function loadOpenThread(): string {
  try {
    const stored = globalThis.localStorage?.getItem(openThreadStorageKey);
    if (stored !== null && stored !== undefined && stored !== '') return stored;
  } catch {
    // Storage disabled: start a new thread.
  }
  return crypto.randomUUID();
}

/** Remembers the open thread (best effort: without storage a reload starts a new thread). */
export function saveOpenThread(threadId: string): void {
  try {
    globalThis.localStorage?.setItem(openThreadStorageKey, threadId);
  } catch {
    // Storage disabled or full.
  }
}
