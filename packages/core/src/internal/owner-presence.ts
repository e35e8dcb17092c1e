import type { WebLockManager } from './dom-globals.ts';
import { tabLockManager } from './web-locks.ts';

/** What every presence lock's name starts with (the rest is random, one per page or worker). */
export const PRESENCE_LOCK_PREFIX = 'switchboard.run-owner ';

/**
 * How long, in ms, a presence keeps its lock after its last member left (see
 * {@link OwnerPresence}): a chat's next answer usually starts within seconds of the last one,
 * and asking the browser for the lock again (a round trip to the browser process before the run's
 * first write can name it) delays that run's start.
 */
export const PRESENCE_LINGER_MS = 5_000;

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
 * After the last member left, the lock is kept {@link PRESENCE_LINGER_MS} longer and reused by
 * a run that starts meanwhile, instead of being let go and asked for again at every run (each
 * request and grant costs a run start frames). So other pages see this one as present up to that
 * long after its last run ended. That is harmless: presence is asked only about `running` rows
 * (`isStale` in agent/recover-run.ts), and a run that ended is no longer `running` — except a run
 * whose terminal write failed, which other pages then recover up to {@link PRESENCE_LINGER_MS}
 * later (this page's own loads recover it at once: it is its own lease). `pagehide` lets go at
 * once, lingering or not.
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
  readonly #lingerMs: number;
  /** Cancels the pending let-go after the last member left; set while lingering. */
  #cancelLinger: (() => void) | undefined;
  /** Let go on `pagehide`: leases keep naming the lock, which now says "gone". */
  #hidden = false;
  readonly #restoredListeners = new Set<() => void>();

  /**
   * @param options.locks The origin's lock manager (`undefined`: no Web Locks, hold nothing).
   * @param options.page Where `pagehide` / `pageshow` fire (the window); absent: none.
   * @param options.id The random part of the lock name. Default a random UUID.
   * @param options.lingerMs How long the lock is kept after the last member left, in ms (`0`: let
   *   go at once). Default {@link PRESENCE_LINGER_MS}. The timer is unref'd where timers can be
   *   (Node), so it never keeps a process alive.
   */
  constructor(options: {
    locks: WebLockManager | undefined;
    page?: PageLifecycle | undefined;
    id?: string;
    lingerMs?: number;
  }) {
    this.lockName = PRESENCE_LOCK_PREFIX + (options.id ?? crypto.randomUUID());
    this.#locks = options.locks;
    this.#lingerMs = options.lingerMs ?? PRESENCE_LINGER_MS;
    options.page?.addEventListener('pagehide', () => this.#pageHidden());
    options.page?.addEventListener('pageshow', (event) => {
      if (event.persisted === true) this.#pageRestored();
    });
  }

  /**
   * Joins: resolves once the lock is held (at once without Web Locks), so the lease written next
   * can name it (a lock still lingering after the last member is reused: no new request).
   * Returns `leave`, to call once the member's row is no longer `running` as its own (written
   * terminal, or taken by another client); the lock is let go `lingerMs` after the last member
   * left, unless another joined meanwhile.
   */
  async join(): Promise<() => void> {
    this.#members++;
    this.#stopLingering();
    let left = false;
    const leave = (): void => {
      if (left) return;
      left = true;
      this.#members--;
      if (this.#members === 0) this.#linger();
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

  /** Lets go `lingerMs` from now, unless a member joins first (or at once for `0`). */
  #linger(): void {
    if (this.#holding === undefined) return; // nothing held or asked for (no Web Locks)
    if (this.#lingerMs <= 0) {
      this.#release();
      return;
    }
    this.#stopLingering();
    const timer = setTimeout(() => {
      this.#cancelLinger = undefined;
      if (this.#members === 0) this.#release();
    }, this.#lingerMs);
    (timer as { unref?: () => void }).unref?.();
    this.#cancelLinger = () => clearTimeout(timer);
  }

  #stopLingering(): void {
    this.#cancelLinger?.();
    this.#cancelLinger = undefined;
  }

  #release(): void {
    this.#stopLingering();
    this.#held = false;
    this.#holding = undefined;
    this.#granted?.(false);
    this.#granted = undefined;
    this.#letGo?.();
    this.#letGo = undefined;
  }

  #pageHidden(): void {
    if (this.#members === 0) {
      // Lingering after the last run: nothing to tell on a restore, just stop saying "here".
      if (this.#holding !== undefined) this.#release();
      return;
    }
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
