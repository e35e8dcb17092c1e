/**
 * Runs `task` while holding the exclusive lock `name`, and resolves with its result; callers of
 * the same name run one after the other, in call order. When `signal` aborts while waiting for
 * the lock, rejects with its reason without running `task`.
 */
export type RefreshLock = <Result>(
  name: string,
  task: () => Promise<Result>,
  signal?: AbortSignal,
) => Promise<Result>;
import type { WebLockManager } from '../internal/dom-globals.ts';

/** The tail of each lock's queue in this JavaScript realm. */
const queues = new Map<string, Promise<void>>();

/** A {@link RefreshLock} shared by everything in this JavaScript realm (tab, worker, process). */
export const inProcessLock: RefreshLock = async (name, task, signal) => {
  signal?.throwIfAborted();
  const previous = queues.get(name) ?? Promise.resolve();
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => held);
  queues.set(name, tail);
  try {
    await waitUnlessAborted(previous, signal);
    return await task();
  } finally {
    release();
    if (queues.get(name) === tail) queues.delete(name);
  }
};

/**
 * A {@link RefreshLock} over the Web Locks API (`navigator.locks`): shared by every tab and
 * worker of the origin, released when the holder's page goes away.
 */
export function webLocksLock(locks: WebLockManager): RefreshLock {
  return async (name, task, signal) =>
    await locks.request(name, signal === undefined ? {} : { signal }, async () => await task());
}

/** `navigator.locks` when the runtime has it, else {@link inProcessLock}. */
export function defaultRefreshLock(): RefreshLock {
  const locks = (globalThis.navigator as Navigator | undefined)?.locks as LockManager | undefined;
  return typeof locks?.request === 'function' ? webLocksLock(locks) : inProcessLock;
}

function waitUnlessAborted(promise: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return promise;
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
