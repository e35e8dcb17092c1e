import { describe, expect, it } from 'vitest';
import { whenTaskEnds } from './task-end.ts';

describe('whenTaskEnds', () => {
  it('resolves after the current task, every waiter of a task together, again in later tasks', async () => {
    const order: string[] = [];
    const first = whenTaskEnds().then(() => order.push('first'));
    const second = whenTaskEnds().then(() => order.push('second'));
    queueMicrotask(() => order.push('microtask'));
    await Promise.all([first, second]);
    expect(order).toEqual(['microtask', 'first', 'second']);
    // The shared channel serves the next task too.
    await whenTaskEnds();
    await whenTaskEnds();
  });
});
