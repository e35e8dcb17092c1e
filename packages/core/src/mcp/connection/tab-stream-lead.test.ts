import { describe, expect, it } from 'vitest';
import { lockManagerDouble } from '../../internal/web-locks-test-support.ts';
import { TabStreamLead } from './tab-stream-lead.ts';

/** Resolves once pending promise callbacks (the lock grants) ran. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('TabStreamLead', () => {
  it('lets one tab lead and hands the lead to the next when it closes', async () => {
    const locks = lockManagerDouble();
    const first = new TabStreamLead('streams', locks);
    const second = new TabStreamLead('streams', locks);
    const changes: [boolean, boolean][] = [];
    second.subscribe((leading, handedOver) => changes.push([leading, handedOver]));
    await settle();
    expect(first.leading).toBe(true);
    expect(second.leading).toBe(false);

    first.close();
    await settle();
    expect(first.leading).toBe(false);
    expect(second.leading).toBe(true);
    expect(changes).toEqual([[true, true]]);
    second.close();
  });

  it('opens a stream only while leading, and closes it (or stops waiting) on close', async () => {
    const locks = lockManagerDouble();
    const first = new TabStreamLead('streams', locks);
    const second = new TabStreamLead('streams', locks);
    await settle();
    const opened: string[] = [];
    const closed: string[] = [];
    const stream = (name: string) => async () => {
      opened.push(name);
      return {
        close: async () => {
          closed.push(name);
        },
      };
    };
    const firstStream = first.openWhenLeading(stream('first'));
    const secondStream = second.openWhenLeading(stream('second'));
    await settle();
    expect(opened).toEqual(['first']);

    await firstStream.close();
    first.close();
    await settle();
    expect(closed).toEqual(['first']);
    expect(opened).toEqual(['first', 'second']);

    await secondStream.close();
    expect(closed).toEqual(['first', 'second']);
    second.close();
  });

  it('leaves a stream whose open failed closed, and a closed lead stops waiting', async () => {
    const locks = lockManagerDouble();
    const first = new TabStreamLead('streams', locks);
    const waiting = new TabStreamLead('streams', locks);
    await settle();
    const handle = first.openWhenLeading(() => Promise.reject(new Error('no subscriptions')));
    await expect(handle.close()).resolves.toBeUndefined();

    waiting.close();
    first.close();
    await settle();
    expect(waiting.leading).toBe(false);
    // The lock is free again: a new tab leads at once.
    const next = new TabStreamLead('streams', locks);
    await settle();
    expect(next.leading).toBe(true);
    next.close();
  });
});
