import { describe, expect, it } from 'vitest';
import { ReplayChannel } from './replay-channel.ts';

async function all<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const values: T[] = [];
  for await (const value of iterable) values.push(value);
  return values;
}

describe('ReplayChannel', () => {
  it('gives every consumer every value from the start, early and late ones alike', async () => {
    const channel = new ReplayChannel<number>();
    const early = all(channel);
    channel.push(1);
    await Promise.resolve();
    channel.push(2);
    const late = all(channel);
    channel.push(3);
    channel.close();
    channel.push(4);
    expect(await early).toEqual([1, 2, 3]);
    expect(await late).toEqual([1, 2, 3]);
    expect(await all(channel)).toEqual([1, 2, 3]);
  });

  it('answers next() calls made before the values exist in order', async () => {
    const channel = new ReplayChannel<string>();
    const iterator = channel[Symbol.asyncIterator]();
    const first = iterator.next();
    const second = iterator.next();
    const third = iterator.next();
    channel.push('a');
    channel.push('b');
    channel.close();
    expect(await Promise.all([first, second, third])).toEqual([
      { value: 'a', done: false },
      { value: 'b', done: false },
      { value: undefined, done: true },
    ]);
  });

  it('stops a consumer that breaks off, also while it waits, without affecting the others', async () => {
    const channel = new ReplayChannel<number>();
    const iterator = channel[Symbol.asyncIterator]();
    const waiting = iterator.next();
    await iterator.return?.();
    channel.push(1);
    expect(await waiting).toEqual({ value: undefined, done: true });
    expect(await iterator.next()).toEqual({ value: undefined, done: true });
    channel.close();
    expect(await all(channel)).toEqual([1]);
  });
});
