import type { AttachmentStore } from './attachment-store.ts';

/**
 * A row of the `attachments` object store of the history database: the bytes as a `Blob`, which
 * IndexedDB keeps as a blob (not a string, not base64), keyed by `[threadId, attachmentId]`.
 */
export interface AttachmentRow {
  threadId: string;
  attachmentId: string;
  bytes: Blob;
}

/** The reads and writes of `attachments` rows, each one transaction of the history database. */
export interface AttachmentRowAccess {
  get(key: [string, string], signal: AbortSignal | undefined): Promise<AttachmentRow | undefined>;
  put(row: AttachmentRow, signal: AbortSignal | undefined): Promise<void>;
}

/**
 * The {@link AttachmentStore} of `IndexedDbHistoryStore` (its `attachments`): one row per
 * thread and attachment in the history database's own `attachments` object store, so
 * `deleteThread` removes a thread's runs and bytes in one transaction. Fails as the history
 * store does (`history_error`, `aborted`).
 */
export class IndexedDbAttachmentStore implements AttachmentStore {
  readonly #rows: AttachmentRowAccess;

  constructor(rows: AttachmentRowAccess) {
    this.#rows = rows;
  }

  async put(
    threadId: string,
    attachmentId: string,
    bytes: Blob,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    await this.#rows.put({ threadId, attachmentId, bytes }, options.signal);
  }

  async get(
    threadId: string,
    attachmentId: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<Blob | undefined> {
    return (await this.#rows.get([threadId, attachmentId], options.signal))?.bytes;
  }
}

/** Every `[threadId, attachmentId]` key of one thread (arrays sort after every string). */
export function threadAttachmentRange(threadId: string): IDBKeyRange {
  return IDBKeyRange.bound([threadId], [threadId, []]);
}
