import type { Item } from '../vocabulary/items.ts';

/**
 * The items of a thread's branch, root first, as the thread cache and the runs reading it share
 * them: the first {@link length} items of an append-only list. A branch that grows at the list's
 * end (a chat going on) appends only its new items, so neither keeping the branch nor reading it
 * at a run start copies the thread (docs/architecture.md, "The life of a run"); only a branch
 * that forks below the list's end copies its prefix once.
 *
 * The list never leaves this class: every array handed out is a new one ({@link with}), so a
 * model adapter or hook that changes its request's items cannot change the branch. Items are
 * shared, as the thread cache's rows are: never mutate one.
 */
export class BranchItems {
  /** Shared with the snapshots this one was extended from or to; only ever appended to. */
  readonly #list: Item[];
  /** How many items of the list are this branch's. */
  readonly length: number;

  private constructor(list: Item[], length: number) {
    this.#list = list;
    this.length = length;
  }

  /** A branch of `items` (copied: the caller keeps its array). */
  static of(items: readonly Item[]): BranchItems {
    return new BranchItems([...items], items.length);
  }

  /**
   * This branch followed by `items`: O(`items`) when this branch ends where the list does (no
   * other branch appended to it since), else a copy of this branch first. This branch reads as
   * it did either way.
   */
  extend(items: readonly Item[]): BranchItems {
    if (items.length === 0) return this;
    const list = this.#list.length === this.length ? this.#list : this.#list.slice(0, this.length);
    for (const item of items) list.push(item);
    return new BranchItems(list, list.length);
  }

  /**
   * A new array of this branch's items followed by `tail`: what a model request carries. The
   * one copy a request costs (each request owns its array; see the class comment).
   */
  with(tail: readonly Item[]): Item[] {
    // `concat` allocates the result once at its size: at 10,000 items 2–5× faster than `slice`
    // then `push` (which grows the array again for the tail) or a spread, in Node 20.
    if (this.#list.length === this.length) return this.#list.concat(tail);
    const items = this.#list.slice(0, this.length);
    for (const item of tail) items.push(item);
    return items;
  }
}
