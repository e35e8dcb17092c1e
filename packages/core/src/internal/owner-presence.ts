import type { WebLockManager } from './dom-globals.ts';
import { tabLockManager } from './web-locks.ts';

/** What every presence lock's name starts with (the rest is random, one per page or worker). */
export const PRESENCE_LOCK_PREFIX = 'switchboard.run-owner ';

/** The page events a presence follows (a `Window`; absent in Node and workers). */
export interface PageLifecycle {
  addEventListener(
    type: 'pagehide' | 'pageshow',
    listener: (event: { persisted?: boolean }) => void,
  ): void;
}

/**
 * Whether the page (or worker) that runs a run is still there, told by an exclusive Web Lock it
 * holds while it has a `running` row: the lease names the lock (`RunLease.lock`), and a reader
 * that finds the lock free knows the run's owner is gone — at once, not when the lease expires
 * (docs/architecture.md, "Where state lives"). The browser frees a page's locks when the page is
 * closed, reloaded or crashes; this presence also lets go on `pagehide` (not `beforeunload`,
 * which a page may not get and which fires for navigations that are then cancelled), so a page
 * kept in the back/forward cache does not look alive while it is frozen. A page restored from
 * that cache (`pageshow` with `persisted`) asks for its lock again and tells its runs
 * ({@link onRestored}), which renew their leases by compare-and-set before anything else: a run
 * another client recovered meanwhile is lost, never continued as if it were still its own.
 *
 * Without Web Locks (Node, old browsers) it holds nothing and leases carry no lock: readers then
 * go by the lease's expiry alone, as before.
 */
export class OwnerPresence {
  /** The lock this presence holds. */
  readonly lockName: string;
  readonly #locks: WebLockManager | undefined;
  /** Journals with a `running` row now: the lock is held while there is one. */
  #members = 0;
  /** Resolves once the current request was granted (true) or given up (false). */
  #holding: Promise<boolean> | undefined;
  #granted: ((held: boolean) => void) | undefined;
  #letGo: (() => void) | undefined;
  #held = false;
  /** Let go on `pagehide`: leases keep naming the lock, which now says "gone". */
  #hidden = false;
  readonly #restoredListeners = new Set<() => void>();

  /**
   * @param options.locks The origin's lock manager (`undefined`: no Web Locks, hold nothing).
   * @param options.page Where `pagehide` / `pageshow` fire (the window); absent: none.
   * @param options.id The random part of the lock name. Default a random UUID.
   */
  constructor(options: {
    locks: WebLockManager | undefined;
    page?: PageLifecycle | undefined;
    id?: string;
  }) {
    this.lockName = PRESENCE_LOCK_PREFIX + (options.id ?? crypto.randomUUID());
    this.#locks = options.locks;
    options.page?.addEventListener('pagehide', () => this.#pageHidden());
    options.page?.addEventListener('pageshow', (event) => {
      if (event.persisted === true) this.#pageRestored();
    });
  }

  /**
   * Joins: resolves once the lock is held (at once without Web Locks), so the lease written next
   * can name it. Returns `leave`, to call once the member's row is no longer `running` as its own
   * (written terminal, or taken by another client); the lock is let go with the last member.
   */
  async join(): Promise<() => void> {
    this.#members++;
    let left = false;
    const leave = (): void => {
      if (left) return;
      left = true;
      this.#members--;
      if (this.#members === 0) this.#release();
    };
    await this.#acquire();
    return leave;
  }

  /**
   * The lock a lease written now names: while it is held, and after `pagehide` let it go (the
   * page is going away, and the free lock must say so); `undefined` before it was granted, or
   * without Web Locks — such a lease is judged by its expiry alone.
   */
  get leaseLock(): string | undefined {
    return this.#held || (this.#hidden && this.#members > 0) ? this.lockName : undefined;
  }

  /** Calls `listener` after a restore from the back/forward cache. Returns stop. */
  onRestored(listener: () => void): () => void {
    this.#restoredListeners.add(listener);
    return () => this.#restoredListeners.delete(listener);
  }

  #acquire(): Promise<boolean> {
    const locks = this.#locks as LockManager | undefined;
    if (locks === undefined) return Promise.resolve(false);
    if (this.#holding !== undefined) return this.#holding;
    const holding = new Promise<boolean>((resolve) => {
      this.#granted = resolve;
    });
    this.#holding = holding;
    const released = new Promise<void>((resolve) => {
      this.#letGo = resolve;
    });
    locks
      .request(this.lockName, async () => {
        if (this.#holding !== holding) return; // let go before it was granted
        this.#held = true;
        this.#granted?.(true);
        await released;
      })
      .catch(() => this.#granted?.(false));
    return holding;
  }

  #release(): void {
    this.#held = false;
    this.#holding = undefined;
    this.#granted?.(false);
    this.#granted = undefined;
    this.#letGo?.();
    this.#letGo = undefined;
  }

  #pageHidden(): void {
    if (this.#members === 0) return;
    this.#hidden = true;
    this.#release();
  }

  #pageRestored(): void {
    if (!this.#hidden) return;
    this.#hidden = false;
    if (this.#members === 0) return;
    void this.#acquire().then(() => {
      for (const listener of [...this.#restoredListeners]) listener();
    });
  }
}

/**
 * The presence locks held now in the origin (every tab's and worker's), or `undefined` without
 * Web Locks (then nobody's presence can be told: go by lease expiry).
 */
export async function heldPresenceLocks(
  locks: WebLockManager | undefined = tabLockManager(),
): Promise<ReadonlySet<string> | undefined> {
  const manager = locks as LockManager | undefined;
  if (typeof manager?.query !== 'function') return undefined;
  try {
    const snapshot = await manager.query();
    return new Set(
      (snapshot.held ?? []).flatMap((lock) =>
        lock.name?.startsWith(PRESENCE_LOCK_PREFIX) === true ? [lock.name] : [],
      ),
    );
  } catch {
    // A lock manager that cannot answer tells nothing: leases decide.
    return undefined;
  }
}

let realm: OwnerPresence | undefined;

/**
 * This page's (or worker's) presence, shared by all its agents: made on first use, so loading
 * the module registers nothing. In Node it has no lock manager and holds nothing.
 */
export function realmPresence(): OwnerPresence {
  if (realm !== undefined) return realm;
  const scope = globalThis as { document?: unknown; addEventListener?: unknown };
  const page =
    scope.document !== undefined && typeof scope.addEventListener === 'function'
      ? (globalThis as unknown as PageLifecycle)
      : undefined;
  realm = new OwnerPresence({ locks: tabLockManager(), page });
  return realm;
}
