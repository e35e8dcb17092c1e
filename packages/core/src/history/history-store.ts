import type { Interrupt } from '../vocabulary/interrupts.ts';
import type { FunctionCallItem, FunctionCallOutputItem, Item, Usage } from '../vocabulary/items.ts';
import type { RunStatus } from '../vocabulary/run-status.ts';
import type { AttachmentStore } from './attachment-store.ts';

export type { RunStatus };

/**
 * One run's row: the items that run added to its thread, and its status. A thread's history is
 * its runs' items in `createdAt` order, so appending a run writes only that run's items.
 */
export interface RunRecord {
  runId: string;
  threadId: string;
  status: RunStatus;
  /** Items this run added, in order. */
  items: Item[];
  usage?: Usage;
  /** Error message of a failed run. */
  error?: { code: string; message: string };
  /** Thread state, and for a paused run what it needs to resume (`pending`). */
  state?: RunState;
  /** The `sequence` of the last chunk the run emitted, so a resumed run continues numbering. */
  lastSequence?: number;
  /** Milliseconds since the epoch. */
  createdAt: number;
  updatedAt: number;
  /**
   * Bumped by one on every {@link HistoryStore.compareAndSetRun} write (the first write stores
   * 1). A row without it (written by `saveRun`, or by an older version) counts as version 0.
   */
  version?: number;
  /** The claim on a `running` run: who runs it, and until when unless renewed. */
  lease?: RunLease;
  /**
   * Model call attempts of this run that failed and were retried or handed to a fallback model,
   * oldest first (see `ModelRetryPolicy`). A call that succeeded is in `items`; it is never
   * made again after a reload.
   */
  modelFailures?: ModelFailureRecord[];
  /**
   * The run this one follows in its thread's tree of branches (docs/conversations.md,
   * "Branches"): the model's input for this run is the items of its ancestors, root first.
   * `null`: the run starts the thread (a first message, or an edit of it). Absent (rows
   * written before branches existed): the run follows the thread's previous run in `createdAt`
   * order, so an old thread reads as one linear branch. Runs with the same parent are siblings:
   * an edited message or a regenerated answer is a new sibling, never a copy of the thread.
   */
  parentRunId?: string | null;
  /**
   * Set on the runs of a nested thread — a sub-agent run as a tool of another agent
   * (`Agent.asTool`): the parent run's call whose tool this run is. The nested run keeps its own
   * thread; this is its link back.
   */
  parentCall?: ParentCallRef;
}

/** The call of a parent run that a nested run works for (see {@link RunRecord.parentCall}). */
export interface ParentCallRef {
  threadId: string;
  runId: string;
  callId: string;
}

/**
 * A thread's selected branch, as {@link HistoryStore.selectBranch} stores it: the leaf run the
 * user switched to, and when. A run created after `selectedAt` is newer than the choice and
 * wins (sending, editing or regenerating moves to the new run without a write of its own).
 */
export interface BranchSelection {
  leafRunId: string;
  /** Milliseconds since the epoch. */
  selectedAt: number;
}

/** A failed model call attempt that the run retried or handed to a fallback model. */
export interface ModelFailureRecord {
  /** The model, as `provider/modelId`. */
  model: string;
  /** Which attempt on that model failed, from 1. */
  attempt: number;
  /** The failure's `SwitchboardErrorCode`, its HTTP status when there was one, its message. */
  code: string;
  status?: number;
  message: string;
  /** What followed: the same model again after `delayMs`, or the model `to`. */
  then: { action: 'retry'; delayMs: number } | { action: 'fallback'; to: string };
  /** When it failed, in ms since the epoch. */
  at: number;
}

/**
 * The claim a client holds on a `running` run row. The owner renews it (heartbeat) while the
 * run is alive; once `expiresAt` has passed without a renewal, the run is considered dead (the
 * tab closed, the process died) and the next load or resume of its thread recovers it.
 */
export interface RunLease {
  /** An opaque id of the claiming client (one per `Agent` instance). */
  owner: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
  /**
   * The Web Lock the claiming page or worker holds while it is there (`navigator.locks`, one
   * per page): when it is free, the owner is gone (closed, reloaded, crashed) and the run is
   * recovered at once, before `expiresAt`. Absent where there are no Web Locks, and for a store
   * not {@link HistoryStore.sharedWithinLockScope}: the expiry alone decides.
   */
  lock?: string;
}

/** What {@link HistoryStore.compareAndSetRun} did. */
export type CompareAndSetResult =
  | { written: true; version: number }
  /** The stored row had another version; `current` is that row (`undefined`: no row). */
  | { written: false; current: RunRecord | undefined };

/** A tool call of a paused run that waits for a human, with what resuming it needs. */
export interface PendingCall {
  call: FunctionCallItem;
  interrupt: Interrupt;
  /**
   * Plain JSON the tool needs to resume without the original client: for MRTR the
   * `requestState` and `inputRequests`; absent for approvals.
   */
  resumeState?: unknown;
}

/**
 * The versioned state of a paused run (docs/architecture.md, "Where state lives"): pending
 * interrupts and the thread state.
 * Plain data: it is stored as it is (IndexedDB, JSONL) and read back by a new `Agent`.
 */
export interface RunState {
  version: 1;
  /** Calls held for a human, in call order. */
  pending: PendingCall[];
  /** Names of deferred tools activated by `tool_search` in this thread (union of all searches). */
  activatedTools?: string[];
  /**
   * Outputs of the current turn's calls that settled while others still ran, stored as they
   * settle (a `running` row only). At the end of the turn they move into `items`, in call
   * order; a recovered run (see `AgentOptions.leaseMs`) keeps them instead of "outcome unknown".
   */
  settled?: FunctionCallOutputItem[];
  /**
   * Calls of the current turn still running that another client can resume (a `running` row
   * only; see `ToolContext.keepResumable`), e.g. an MCP call following a task: a recovered run
   * becomes `paused` on them instead of closing them as `outcome_unknown`.
   */
  resumable?: PendingCall[];
}

/**
 * An opaque position in a thread's stored changes, from {@link HistoryStore.loadRunChanges}.
 * Plain text: it may be kept (e.g. across a reload) and handed to another instance of the same
 * store over the same storage.
 */
export type ThreadCursor = string;

/** What changed in a thread since a cursor (see {@link HistoryStore.loadRunChanges}). */
export interface RunChanges {
  /**
   * The rows written after the cursor (each row's latest version), ordered as `loadRuns` orders
   * them; when `complete`, every row of the thread.
   */
  runs: RunRecord[];
  /** Where the next call starts. */
  cursor: ThreadCursor;
  /**
   * True when `runs` is the whole thread (no cursor, an unknown or outdated cursor, or the thread
   * was deleted and written again since): the caller replaces what it holds instead of merging.
   */
  complete: boolean;
}

/** A thread as listed in a thread picker. */
export interface ThreadSummary {
  threadId: string;
  /** The first user message, cut to 80 characters, unless renamed. */
  title: string;
  createdAt: number;
  updatedAt: number;
}

/**
 * Persistence for threads of runs (docs/architecture.md, "Where state lives"). Implementations:
 * `MemoryHistoryStore`,
 * `IndexedDbHistoryStore` and `JsonlHistoryStore` (Node). Every method takes an optional
 * `signal`. Run rows are claimed with {@link HistoryStore.compareAndSetRun}, so that of two
 * clients resuming one paused run exactly one proceeds.
 */
export interface HistoryStore {
  /**
   * True when every client that reads or writes this store shares one Web Locks manager with
   * this one: an origin's IndexedDB (the browser's lock manager spans the origin's tabs and
   * workers) or an in-memory store (one realm). Only then does a run's lease name a presence lock
   * (`RunLease.lock`) and does a reader take a free lock for an owner that is gone. A store shared
   * by processes or machines (JSONL, PostgreSQL, a server's store) must leave it unset: each
   * process has its own lock manager (Node 24 has `navigator.locks` too), so a lock held
   * elsewhere would look free and a live run would be recovered. Default false: leases expire.
   */
  readonly sharedWithinLockScope?: boolean;
  /** The thread's items, oldest first; `[]` for an unknown thread. */
  loadItems(threadId: string, options?: { signal?: AbortSignal }): Promise<Item[]>;
  /** The thread's run rows, oldest first; `[]` for an unknown thread. */
  loadRuns(threadId: string, options?: { signal?: AbortSignal }): Promise<RunRecord[]>;
  /**
   * The thread's rows written since `since` (a cursor an earlier call returned), so a reader that
   * keeps what it read (the agent's thread cache) asks only for what changed: O(changed rows),
   * not O(thread). Without a cursor, or with one this storage cannot continue from (another
   * storage, a compacted log, a thread deleted and created again since), the answer is the whole
   * thread with `complete: true`. Rows are copies (as `loadRuns` hands out). An unknown thread
   * answers `{ runs: [], complete: true }` with a cursor that a later write moves past.
   * How a store does it (docs/architecture.md, "How to add … a history store"): a change number
   * per row, bumped on every write, indexed per thread, and a generation per thread life.
   *
   * @throws SwitchboardError `history_error` when the storage fails; `aborted` when `signal`
   *   aborts.
   */
  loadRunChanges(
    threadId: string,
    since: ThreadCursor | undefined,
    options?: { signal?: AbortSignal },
  ): Promise<RunChanges>;
  /**
   * Inserts or replaces the row of `run.runId`, creating its thread when new, without checking
   * what is stored (stored as given, `version` included). The agent writes its rows with
   * {@link compareAndSetRun}; `saveRun` is for imports and tests.
   */
  saveRun(run: RunRecord, options?: { signal?: AbortSignal }): Promise<void>;
  /**
   * Compare-and-set on one run row, atomic against every other writer of the same storage
   * (other instances, other tabs, other processes where the store supports them): when the
   * stored row of `run.runId` has version `expectedVersion` (0: no row, or a row without
   * `version`), stores `run` with `version: expectedVersion + 1` and updates its thread as
   * `saveRun` does; otherwise writes nothing and returns the row found.
   *
   * @throws SwitchboardError `history_error` when the storage fails; `aborted` when `signal`
   *   aborts (nothing written).
   */
  compareAndSetRun(
    run: RunRecord,
    expectedVersion: number,
    options?: { signal?: AbortSignal },
  ): Promise<CompareAndSetResult>;
  /** Threads, most recently updated first. */
  listThreads(options?: { signal?: AbortSignal }): Promise<ThreadSummary[]>;
  /** Sets a thread's title; unknown ids are ignored. */
  renameThread(threadId: string, title: string, options?: { signal?: AbortSignal }): Promise<void>;
  /**
   * Remembers the thread's selected branch (the user switched to a sibling), replacing the one
   * stored; an unknown thread is ignored. One small write to the thread's entry, never its runs.
   */
  selectBranch(
    threadId: string,
    selection: BranchSelection,
    options?: { signal?: AbortSignal },
  ): Promise<void>;
  /** The thread's stored {@link BranchSelection}; `undefined` when none (or unknown thread). */
  loadBranchSelection(
    threadId: string,
    options?: { signal?: AbortSignal },
  ): Promise<BranchSelection | undefined>;
  /** Removes a thread and its runs (and its attachments); unknown ids are ignored. */
  deleteThread(threadId: string, options?: { signal?: AbortSignal }): Promise<void>;
  /**
   * The bytes of files attached to the threads' user messages (docs/conversations.md,
   * "Attachments"). Absent: the store keeps no attachments, and `Agent.execute` refuses them
   * with `invalid_input`.
   */
  readonly attachments?: AttachmentStore;
}

/**
 * The title a thread gets from its first user message: whitespace collapsed, cut to 80
 * characters (the 80th an ellipsis); `undefined` when `items` hold no user message. Every
 * {@link HistoryStore} titles new threads by this rule.
 */
export function titleFromItems(items: readonly Item[]): string | undefined {
  for (const item of items) {
    if (item.type === 'message' && item.role === 'user') {
      const text = item.content.replace(/\s+/g, ' ').trim();
      return text.length > 80 ? `${text.slice(0, 79)}…` : text;
    }
  }
  return undefined;
}

/** A thread's title before its first user message. */
export const DEFAULT_THREAD_TITLE = 'New thread';

/** The fields of a stored thread entry that saving a run updates. */
export interface ThreadEntryFields {
  title: string;
  titleSource: 'auto' | 'user';
  createdAt: number;
  updatedAt: number;
}

/**
 * The thread entry after saving `run` into it (`existing`, or a new entry): first and last times,
 * and the automatic title from the first user message while the user has not named the thread.
 * One rule for every store that keeps thread entries.
 */
export function threadEntryWithRun<Entry extends ThreadEntryFields>(
  existing: Entry | undefined,
  run: RunRecord,
  extra: Omit<Entry, keyof ThreadEntryFields>,
): Entry {
  const entry = (existing ?? {
    ...extra,
    title: DEFAULT_THREAD_TITLE,
    titleSource: 'auto',
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
  }) as Entry;
  entry.createdAt = Math.min(entry.createdAt, run.createdAt);
  entry.updatedAt = Math.max(entry.updatedAt, run.updatedAt);
  if (entry.titleSource === 'auto' && entry.title === DEFAULT_THREAD_TITLE) {
    entry.title = titleFromItems(run.items) ?? DEFAULT_THREAD_TITLE;
  }
  return entry;
}
