/**
 * Awaits `promise`, but rejects at once with `onAbort(signal.reason)` when `signal` aborts first
 * (the work itself goes on: it may be shared with others). Without a signal, `promise` itself.
 */
export async function withSignal<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  onAbort: (reason: unknown) => Error,
): Promise<T> {
  if (signal === undefined) return promise;
  let listener: (() => void) | undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    listener = () => reject(onAbort(signal.reason));
    if (signal.aborted) listener();
    else signal.addEventListener('abort', listener, { once: true });
  });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    if (listener !== undefined) signal.removeEventListener('abort', listener);
  }
}
