import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  heldPresenceLocks,
  OwnerPresence,
  PRESENCE_LINGER_MS,
  type PageLifecycle,
} from './owner-presence.ts';
import { lockManagerDouble } from './web-locks-test-support.ts';

/** A lock manager double that counts its `request` calls. */
function countingLockManager(): { locks: LockManager; requests: () => number } {
  let count = 0;
  const double = lockManagerDouble();
  const locks = {
    ...double,
    request: ((...args: Parameters<LockManager['request']>) => {
      count++;
      return double.request(...args);
    }) as LockManager['request'],
  } as LockManager;
  return { locks, requests: () => count };
}

/** A window double that fires `pagehide` / `pageshow` on demand. */
function pageDouble() {
  const listeners = new Map<string, ((event: { persisted?: boolean }) => void)[]>();
  const page: PageLifecycle = {
    addEventListener: (type, listener) => {
      listeners.set(type, [...(listeners.get(type) ?? []), listener]);
    },
  };
  const fire = (type: 'pagehide' | 'pageshow', persisted: boolean): void => {
    for (const listener of listeners.get(type) ?? []) listener({ persisted });
  };
  return { page, fire };
}

describe('OwnerPresence', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('holds its lock from the first join to the last leave, and leases name it meanwhile', async () => {
    const locks = lockManagerDouble();
    const presence = new OwnerPresence({ locks, id: 'tab-1', lingerMs: 0 });
    expect(presence.leaseLock).toBeUndefined();
    expect(await heldPresenceLocks(locks)).toEqual(new Set());

    const leaveFirst = await presence.join();
    const leaveSecond = await presence.join();
    expect(presence.leaseLock).toBe(presence.lockName);
    expect(await heldPresenceLocks(locks)).toEqual(new Set([presence.lockName]));

    leaveFirst();
    leaveFirst(); // once only: the second member still holds it
    expect(await heldPresenceLocks(locks)).toEqual(new Set([presence.lockName]));
    leaveSecond();
    await vi.waitFor(async () => expect(await heldPresenceLocks(locks)).toEqual(new Set()));
    expect(presence.leaseLock).toBeUndefined();
  });

  it('keeps the lock PRESENCE_LINGER_MS after the last leave, reused by a join meanwhile', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { locks, requests } = countingLockManager();
    const presence = new OwnerPresence({ locks, id: 'tab-1' });

    (await presence.join())();
    vi.advanceTimersByTime(PRESENCE_LINGER_MS - 1);
    expect(await heldPresenceLocks(locks)).toEqual(new Set([presence.lockName]));
    // The next run joins while the lock lingers: the same grant, no new request.
    const leave = await presence.join();
    expect(presence.leaseLock).toBe(presence.lockName);
    expect(requests()).toBe(1);
    vi.advanceTimersByTime(PRESENCE_LINGER_MS); // a member is in: no let-go however long
    expect(await heldPresenceLocks(locks)).toEqual(new Set([presence.lockName]));

    leave();
    vi.advanceTimersByTime(PRESENCE_LINGER_MS - 1);
    expect(await heldPresenceLocks(locks)).toEqual(new Set([presence.lockName]));
    vi.advanceTimersByTime(1);
    await vi.waitFor(async () => expect(await heldPresenceLocks(locks)).toEqual(new Set()));
    expect(presence.leaseLock).toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);

    // After the let-go, a join asks again.
    const again = await presence.join();
    expect(requests()).toBe(2);
    expect(await heldPresenceLocks(locks)).toEqual(new Set([presence.lockName]));
    again();
    vi.advanceTimersByTime(PRESENCE_LINGER_MS);
    await vi.waitFor(async () => expect(await heldPresenceLocks(locks)).toEqual(new Set()));
  });

  it('lingerMs 0 lets go at the last leave, with no timer, and the next join asks again', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { locks, requests } = countingLockManager();
    const presence = new OwnerPresence({ locks, id: 'tab-1', lingerMs: 0 });

    (await presence.join())();
    expect(vi.getTimerCount()).toBe(0);
    expect(presence.leaseLock).toBeUndefined();
    await vi.waitFor(async () => expect(await heldPresenceLocks(locks)).toEqual(new Set()));

    // A run starting right after asks for the lock again, and names it once granted.
    const leave = await presence.join();
    expect(requests()).toBe(2);
    expect(presence.leaseLock).toBe(presence.lockName);
    expect(await heldPresenceLocks(locks)).toEqual(new Set([presence.lockName]));
    leave();
    expect(vi.getTimerCount()).toBe(0);
    await vi.waitFor(async () => expect(await heldPresenceLocks(locks)).toEqual(new Set()));
  });

  it('a join right after a let-go waits for the old grant to end, then holds the lock', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const locks = lockManagerDouble();
    const presence = new OwnerPresence({ locks, id: 'tab-1' });
    (await presence.join())();
    // The linger ends and, in the same task, the next run joins: a new request, never the old
    // grant that is being let go.
    vi.advanceTimersByTime(PRESENCE_LINGER_MS);
    const leave = await presence.join();
    expect(presence.leaseLock).toBe(presence.lockName);
    await Promise.resolve();
    expect(await heldPresenceLocks(locks)).toEqual(new Set([presence.lockName]));
    leave();
    vi.advanceTimersByTime(PRESENCE_LINGER_MS);
    await vi.waitFor(async () => expect(await heldPresenceLocks(locks)).toEqual(new Set()));
    expect(vi.getTimerCount()).toBe(0);
  });

  it('pagehide while lingering lets go at once and leaves no timer', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const locks = lockManagerDouble();
    const { page, fire } = pageDouble();
    const presence = new OwnerPresence({ locks, page, id: 'tab-1' });
    const restored = vi.fn();
    presence.onRestored(restored);
    (await presence.join())();
    expect(vi.getTimerCount()).toBe(1);

    fire('pagehide', true);
    expect(vi.getTimerCount()).toBe(0);
    await vi.waitFor(async () => expect(await heldPresenceLocks(locks)).toEqual(new Set()));
    expect(presence.leaseLock).toBeUndefined();
    // No run was going on: a restore has nothing to renew, and takes no lock.
    fire('pageshow', true);
    expect(restored).not.toHaveBeenCalled();
    expect(await heldPresenceLocks(locks)).toEqual(new Set());
  });

  it('lets go on pagehide while leases keep naming the lock; a bfcache restore takes it again and says so', async () => {
    const locks = lockManagerDouble();
    const { page, fire } = pageDouble();
    const presence = new OwnerPresence({ locks, page, id: 'tab-1' });
    const restored = vi.fn();
    presence.onRestored(restored);
    const leave = await presence.join();

    fire('pagehide', true);
    await vi.waitFor(async () => expect(await heldPresenceLocks(locks)).toEqual(new Set()));
    // A write after pagehide must not drop the lock from the lease: a free lock says "gone".
    expect(presence.leaseLock).toBe(presence.lockName);
    expect(restored).not.toHaveBeenCalled();

    fire('pageshow', false); // a first show, not a restore: nothing happens
    expect(restored).not.toHaveBeenCalled();
    fire('pageshow', true);
    await vi.waitFor(() => expect(restored).toHaveBeenCalledTimes(1));
    expect(await heldPresenceLocks(locks)).toEqual(new Set([presence.lockName]));
    leave();
  });

  it('a page without runs ignores pagehide, and joining after it holds the lock again', async () => {
    const locks = lockManagerDouble();
    const { page, fire } = pageDouble();
    const presence = new OwnerPresence({ locks, page, id: 'tab-1' });
    fire('pagehide', true);
    const restored = vi.fn();
    presence.onRestored(restored);
    fire('pageshow', true);
    expect(restored).not.toHaveBeenCalled();
    const leave = await presence.join();
    expect(await heldPresenceLocks(locks)).toEqual(new Set([presence.lockName]));
    leave();
  });

  it('holds nothing without Web Locks: joins resolve at once and leases name no lock', async () => {
    const presence = new OwnerPresence({ locks: undefined });
    const leave = await presence.join();
    expect(presence.leaseLock).toBeUndefined();
    leave();
    expect(await heldPresenceLocks(undefined)).toBeUndefined();
  });

  it('reports only presence locks, and nothing when the lock manager cannot answer', async () => {
    const locks = lockManagerDouble();
    let release!: () => void;
    void locks.request(
      'switchboard.mcp-streams https://x/',
      () => new Promise<void>((resolve) => (release = resolve)),
    );
    const presence = new OwnerPresence({ locks, id: 'tab-2' });
    const leave = await presence.join();
    expect(await heldPresenceLocks(locks)).toEqual(new Set([presence.lockName]));
    leave();
    release();
    const broken = { ...locks, query: () => Promise.reject(new Error('no')) } as LockManager;
    expect(await heldPresenceLocks(broken)).toBeUndefined();
  });
});
