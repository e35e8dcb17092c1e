/** A port that may keep Node's event loop alive (`ref`/`unref` exist in Node only). */
type RefCountedPort = MessagePort & { ref?: () => void; unref?: () => void };

/** Resolvers waiting for the end of the current task. */
let waiting: (() => void)[] = [];
/** One channel for the whole page (created at first use): a new one per task cost more than the rest of the task. */
let channel: MessageChannel | undefined;

/**
 * Resolves once the current task has ended, in a new task: a `MessageChannel` message (not
 * clamped like a nested `setTimeout`, and not held back by fake timers), or `setTimeout(…, 0)`
 * where there is none. All callers waiting in one task share one message on one channel kept
 * for the page's life, so a stream of thousands of tasks creates no channel per task.
 *
 * In Node the port keeps the process alive only while somebody waits.
 */
export function whenTaskEnds(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (waiting.length === 1) postWake();
  });
}

function postWake(): void {
  if (typeof MessageChannel !== 'function') {
    setTimeout(wakeAll, 0);
    return;
  }
  if (channel === undefined) {
    channel = new MessageChannel();
    channel.port1.onmessage = wakeAll;
  }
  (channel.port1 as RefCountedPort).ref?.();
  channel.port2.postMessage(null);
}

function wakeAll(): void {
  const woken = waiting;
  waiting = [];
  (channel?.port1 as RefCountedPort | undefined)?.unref?.();
  for (const resolve of woken) resolve();
}
