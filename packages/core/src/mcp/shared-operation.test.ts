import { describe, expect, it, vi } from 'vitest';
import { SharedOperation } from './shared-operation.ts';

/** An operation that settles when the test says so, and reports its own signal. */
function controllable() {
  let resolve: (value: string) => void = () => undefined;
  let signal: AbortSignal | undefined;
  const run = vi.fn((operationSignal: AbortSignal) => {
    signal = operationSignal;
    return new Promise<string>((done, fail) => {
      resolve = done;
      operationSignal.addEventListener('abort', () => fail(new Error('operation aborted')));
    });
  });
  return { run, resolve: (value: string) => resolve(value), signal: () => signal };
}

const abortError = (signal: AbortSignal) => new Error(`waiter gave up: ${String(signal.reason)}`);

describe('SharedOperation', () => {
  it('one waiter giving up rejects only its own wait; the others get the result', async () => {
    const operation = controllable();
    const abandoned = vi.fn();
    const shared = new SharedOperation(operation.run, abandoned);
    const stopped = new AbortController();
    const first = shared.wait(stopped.signal, abortError);
    const second = shared.wait(new AbortController().signal, abortError);
    const third = shared.wait(undefined, abortError);
    stopped.abort('stop');
    await expect(first).rejects.toThrow('waiter gave up: stop');
    expect(operation.signal()?.aborted).toBe(false);
    operation.resolve('tools');
    await expect(second).resolves.toBe('tools');
    await expect(third).resolves.toBe('tools');
    expect(operation.run).toHaveBeenCalledTimes(1);
    expect(abandoned).not.toHaveBeenCalled();
  });

  it('is aborted (and reports it once) only when every waiter gave up', async () => {
    const operation = controllable();
    const abandoned = vi.fn();
    const shared = new SharedOperation(operation.run, abandoned);
    const one = new AbortController();
    const two = new AbortController();
    const first = shared.wait(one.signal, abortError);
    const second = shared.wait(two.signal, abortError);
    one.abort();
    expect(operation.signal()?.aborted).toBe(false);
    two.abort();
    await expect(first).rejects.toThrow('waiter gave up');
    await expect(second).rejects.toThrow('waiter gave up');
    expect(operation.signal()?.aborted).toBe(true);
    expect(abandoned).toHaveBeenCalledTimes(1);
    await expect(shared.promise).rejects.toThrow('operation aborted');
  });

  it('an already aborted signal never joins; the listener of a settled wait is removed', async () => {
    const operation = controllable();
    const shared = new SharedOperation(operation.run, () => undefined);
    const aborted = AbortSignal.abort('early');
    await expect(shared.wait(aborted, abortError)).rejects.toThrow('early');
    const signal = new AbortController().signal;
    const remove = vi.spyOn(signal, 'removeEventListener');
    const waiting = shared.wait(signal, abortError);
    operation.resolve('done');
    await expect(waiting).resolves.toBe('done');
    expect(remove).toHaveBeenCalledWith('abort', expect.any(Function));
  });
});
