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

  describe('batchReader', () => {
    it('hands out every buffered value at once, from the start, then undefined once closed', async () => {
      const channel = new ReplayChannel<number>();
      channel.push(1);
      channel.push(2);
      const reader = channel.batchReader();
      expect(await reader.next()).toEqual([1, 2]);
      const waiting = reader.next();
      channel.push(3);
      channel.push(4);
      expect(await waiting).toEqual([3]);
      expect(await reader.next()).toEqual([4]);
      channel.close();
      expect(await reader.next()).toBeUndefined();
      // Another reader still reads everything.
      expect(await channel.batchReader().next()).toEqual([1, 2, 3, 4]);
    });

    it('holds holdable values until the end of their task, joined by the rest of it', async () => {
      const channel = new ReplayChannel<string>();
      const reader = channel.batchReader((value) => value.startsWith('delta'));
      const batch = reader.next();
      let handedOut = false;
      void batch.then(() => {
        handedOut = true;
      });
      channel.push('delta 1');
      await Promise.resolve();
      channel.push('delta 2');
      // Microtasks alone do not end the task: still held.
      for (let turn = 0; turn < 20; turn++) await Promise.resolve();
      expect(handedOut).toBe(false);
      channel.push('delta 3');
      expect(await batch).toEqual(['delta 1', 'delta 2', 'delta 3']);
    });

    it('hands out a value that is not holdable at once, with the held ones before it', async () => {
      const channel = new ReplayChannel<string>();
      const reader = channel.batchReader((value) => value.startsWith('delta'));
      const batch = reader.next();
      channel.push('delta 1');
      channel.push('call');
      channel.push('delta 2');
      expect(await batch).toEqual(['delta 1', 'call']);
      // Values already waiting: held ones wait for the task's end, others go at once.
      channel.push('result');
      expect(await reader.next()).toEqual(['delta 2', 'result']);
      channel.push('delta 3');
      channel.close();
      expect(await reader.next()).toEqual(['delta 3']);
      expect(await reader.next()).toBeUndefined();
    });

    it('holds holdable values as `holdUntil` says; takeBuffered takes them at once', async () => {
      const channel = new ReplayChannel<string>();
      const handOuts: (() => void)[] = [];
      const reader = channel.batchReader(
        (value) => value.startsWith('delta'),
        (handOut) => handOuts.push(handOut),
      );
      const batch = reader.next();
      channel.push('delta 1');
      channel.push('delta 2');
      // Asked once per batch, and the task's end does not hand them out.
      expect(handOuts).toHaveLength(1);
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(reader.takeBuffered()).toEqual(['delta 1', 'delta 2']);
      expect(reader.takeBuffered()).toEqual([]);
      // Nothing left to hand out: the pending batch waits for the next value, asking again.
      handOuts.shift()?.();
      channel.push('delta 3');
      expect(handOuts).toHaveLength(1);
      handOuts.shift()?.();
      expect(await batch).toEqual(['delta 3']);
      // A value that is not holdable still goes at once, with the held ones before it.
      const next = reader.next();
      channel.push('delta 4');
      channel.push('call');
      expect(await next).toEqual(['delta 4', 'call']);
      channel.close();
      expect(await reader.next()).toBeUndefined();
    });
  });
});
