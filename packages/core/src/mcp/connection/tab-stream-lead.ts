import type { WebLockManager } from '../../internal/dom-globals.ts';
/** A long-lived stream (or a wait for one) that can be ended. */
export interface ClosableStream {
  close(): Promise<void>;
}

/** Called when leadership changes; `handedOver` when it came after another holder let go. */
export type LeadListener = (leading: boolean, handedOver: boolean) => void;

/**
 * Which one of the tabs (and workers) of an origin holds the long-lived streams to one MCP
 * server: the standalone GET stream (2025 era) and the `subscriptions/listen` streams for
 * `list_changed` (2026-07-28). A browser opens at most 6 HTTP/1.1 connections per host, and
 * every tab holding its own streams stalls the others from the third tab on
 * (docs/architecture.md, "Many tabs, one server").
 *
 * Leadership is an exclusive Web Lock (`navigator.locks`) named after the server's URL, held
 * until {@link close} or until the page goes away — then the browser grants it to the next tab
 * waiting for it, which opens the streams itself (hand-over). The leader relays `list_changed`
 * to the others over a `BroadcastChannel` (`list-change-relay.ts`).
 */
export class TabStreamLead {
  readonly #listeners = new Set<LeadListener>();
  readonly #release = new AbortController();
  #leading = false;

  /**
   * Starts asking for the lock at once.
   *
   * @param name The lock name (one per server URL).
   * @param locks The origin's lock manager.
   */
  constructor(name: string, locks: WebLockManager) {
    const signal = this.#release.signal;
    const hold = (): Promise<void> =>
      new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    // First without waiting, to know whether the lock was free or handed over later.
    void locks
      .request(name, { ifAvailable: true }, async (lock) => {
        if (lock === null) return false;
        this.#set(true, false);
        await hold();
        return true;
      })
      .then(async (held) => {
        if (held || signal.aborted) return;
        await locks.request(name, { signal }, async () => {
          this.#set(true, true);
          await hold();
        });
      })
      .catch(() => {
        // Aborted while waiting (closed), or no lock service: this tab simply does not lead.
      });
  }

  /** True while this tab holds the server's long-lived streams. */
  get leading(): boolean {
    return this.#leading;
  }

  /** Calls `listener` on each change of {@link leading}. Returns stop. */
  subscribe(listener: LeadListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Opens a long-lived stream once (and as soon as) this tab leads; the handle's `close` ends it,
   * or stops waiting. A failed `open` is left closed (as a server without the stream).
   */
  openWhenLeading(open: () => Promise<ClosableStream | undefined>): ClosableStream {
    let closed = false;
    let opened: Promise<ClosableStream | undefined> | undefined;
    const tryOpen = (): void => {
      if (closed || opened !== undefined || !this.#leading) return;
      opened = open().catch(() => undefined);
    };
    const stop = this.subscribe(tryOpen);
    tryOpen();
    return {
      close: async () => {
        closed = true;
        stop();
        await (await opened)?.close().catch(() => undefined);
      },
    };
  }

  /** Lets go of the lock (or stops waiting for it). Idempotent. */
  close(): void {
    this.#release.abort();
    this.#set(false, false);
    this.#listeners.clear();
  }

  #set(leading: boolean, handedOver: boolean): void {
    if (this.#leading === leading) return;
    this.#leading = leading;
    for (const listener of [...this.#listeners]) listener(leading, handedOver);
  }
}

/** The lock every tab asks for to hold the long-lived streams of the server at `url`. */
export function streamLeadLockName(url: URL): string {
  return `switchboard.mcp-streams ${url.href}`;
}
