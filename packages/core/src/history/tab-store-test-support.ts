/** Test support (not exported from the package): a store whose tab can "close". */
import type {
  BranchSelection,
  CompareAndSetResult,
  HistoryStore,
  RunRecord,
  ThreadCursor,
} from './history-store.ts';

/**
 * A store over `inner` that can "close the tab": after `die()` no call ever settles, so nothing
 * more is written (no heartbeat, no final row), as when a page closes in the middle of a run.
 */
export class TabStore implements HistoryStore {
  readonly #inner: HistoryStore;
  #dead = false;
  constructor(inner: HistoryStore) {
    this.#inner = inner;
  }
  die(): void {
    this.#dead = true;
  }
  #call<T>(invoke: () => Promise<T>): Promise<T> {
    return this.#dead ? new Promise<T>(() => undefined) : invoke();
  }
  loadItems(threadId: string) {
    return this.#call(() => this.#inner.loadItems(threadId));
  }
  loadRuns(threadId: string) {
    return this.#call(() => this.#inner.loadRuns(threadId));
  }
  loadRunChanges(threadId: string, since: ThreadCursor | undefined) {
    return this.#call(() => this.#inner.loadRunChanges(threadId, since));
  }
  saveRun(run: RunRecord) {
    return this.#call(() => this.#inner.saveRun(run));
  }
  compareAndSetRun(run: RunRecord, expectedVersion: number): Promise<CompareAndSetResult> {
    return this.#call(() => this.#inner.compareAndSetRun(run, expectedVersion));
  }
  listThreads() {
    return this.#call(() => this.#inner.listThreads());
  }
  renameThread(threadId: string, title: string) {
    return this.#call(() => this.#inner.renameThread(threadId, title));
  }
  selectBranch(threadId: string, selection: BranchSelection) {
    return this.#call(() => this.#inner.selectBranch(threadId, selection));
  }
  loadBranchSelection(threadId: string) {
    return this.#call(() => this.#inner.loadBranchSelection(threadId));
  }
  deleteThread(threadId: string) {
    return this.#call(() => this.#inner.deleteThread(threadId));
  }
}
