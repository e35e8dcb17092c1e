/**
 * The one observable-state primitive of Switchboard: every class that UI code subscribes to
 * (`AgentChat`, `McpServer`, the MCP connection, call tasks, the playground's registries) keeps
 * its snapshot in a `Store`, so every one follows the same rules — the rules
 * `useSyncExternalStore` needs:
 *
 * - `subscribe` and `getSnapshot` are bound once, so they can be passed around as values;
 * - `getSnapshot` returns the same object until the state changes (a new snapshot per change);
 * - `set` ignores a snapshot that is `Object.is`-equal to the current one;
 * - listeners are copied before they are called, so a listener may unsubscribe (or subscribe
 *   another) while being notified, and a throwing listener does not starve the others;
 * - `onFirstSubscribe` / `onLastUnsubscribe` let a store start and stop its work (a watch
 *   stream, a broadcast channel) only while somebody listens.
 *
 * Modelled on TanStack Query's `Subscribable` and zustand's `setState` guard.
 */
export class Store<TSnapshot> {
  #snapshot: TSnapshot;
  readonly #listeners = new Set<() => void>();

  constructor(initial: TSnapshot) {
    this.#snapshot = initial;
    this.subscribe = this.subscribe.bind(this);
    this.getSnapshot = this.getSnapshot.bind(this);
  }

  /**
   * Calls `listener` after every change of the snapshot. Returns the unsubscribe function
   * (calling it twice is harmless).
   */
  subscribe(listener: () => void): () => void {
    const wrapped = (): void => listener();
    this.#listeners.add(wrapped);
    if (this.#listeners.size === 1) this.onFirstSubscribe();
    return () => {
      if (!this.#listeners.delete(wrapped)) return;
      if (this.#listeners.size === 0) this.onLastUnsubscribe();
    };
  }

  /** The current snapshot: the same object until the state changes. */
  getSnapshot(): TSnapshot {
    return this.#snapshot;
  }

  /** True while at least one listener is subscribed. */
  protected get hasListeners(): boolean {
    return this.#listeners.size > 0;
  }

  /**
   * Replaces the snapshot (or derives it from the previous one) and notifies the listeners,
   * unless the new snapshot is `Object.is` the old one. A listener that throws is reported
   * (`reportError` in browsers, `console.error` elsewhere) after the others ran; it never
   * throws into the code that changed the state.
   */
  protected set(next: TSnapshot | ((previous: TSnapshot) => TSnapshot)): void {
    const value =
      typeof next === 'function'
        ? (next as (previous: TSnapshot) => TSnapshot)(this.#snapshot)
        : next;
    if (Object.is(value, this.#snapshot)) return;
    this.#snapshot = value;
    for (const listener of [...this.#listeners]) {
      try {
        listener();
      } catch (error) {
        reportListenerError(error);
      }
    }
  }

  /** Called when the first listener subscribes. Default: nothing. */
  protected onFirstSubscribe(): void {}

  /** Called when the last listener unsubscribes. Default: nothing. */
  protected onLastUnsubscribe(): void {}
}

function reportListenerError(error: unknown): void {
  // A broken listener (a UI bug) must not stop the store, the other listeners or the run that
  // changed the state; surface it where uncaught errors go in a browser.
  const report = (globalThis as { reportError?: (error: unknown) => void }).reportError;
  if (typeof report === 'function') report(error);
  else console.error(error);
}
