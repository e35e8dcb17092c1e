/**
 * An in-process double of the Web Locks API (`navigator.locks`) for Node tests: exclusive locks
 * granted in request order, `ifAvailable`, `signal` to stop waiting, and `query` of the held
 * names. Enough for `TabStreamLead` and `OwnerPresence`; Chromium's own is exercised by
 * e2e/tests/many-tabs.spec.ts and e2e/tests/multi-tab-exactly-once.spec.ts.
 */
export function lockManagerDouble(): LockManager {
  const held = new Set<string>();
  const waiting = new Map<string, (() => void)[]>();
  const release = (name: string): void => {
    const next = waiting.get(name)?.shift();
    if (next === undefined) held.delete(name);
    else next(); // stays held: handed to the next in line
  };
  const request = async (
    name: string,
    optionsOrCallback: LockOptions | ((lock: Lock | null) => unknown),
    maybeCallback?: (lock: Lock | null) => unknown,
  ): Promise<unknown> => {
    // As the real API: `request(name, callback)` or `request(name, options, callback)`.
    const [options, callback] =
      typeof optionsOrCallback === 'function'
        ? [{} as LockOptions, optionsOrCallback]
        : [optionsOrCallback, maybeCallback as (lock: Lock | null) => unknown];
    if (held.has(name)) {
      if (options.ifAvailable === true) return await callback(null);
      await new Promise<void>((resolve, reject) => {
        const queue = waiting.get(name) ?? [];
        waiting.set(name, queue);
        const grant = (): void => {
          options.signal?.removeEventListener('abort', abort);
          resolve();
        };
        const abort = (): void => {
          queue.splice(queue.indexOf(grant), 1);
          reject(options.signal?.reason);
        };
        queue.push(grant);
        options.signal?.addEventListener('abort', abort, { once: true });
      });
    } else {
      held.add(name);
    }
    try {
      return await callback({ name, mode: 'exclusive' } as Lock);
    } finally {
      release(name);
    }
  };
  return {
    request: request as LockManager['request'],
    query: () =>
      Promise.resolve({
        held: [...held].map((name) => ({ name, mode: 'exclusive' as const })),
        pending: [],
      }),
  };
}
