/**
 * Where the bytes of files attached to user messages live, beside a thread's runs
 * (docs/conversations.md, "Attachments"): a `MessageAttachmentPart` in an item names its bytes
 * by `attachmentId`, so thread rows never carry them. Keys are per thread — the same bytes in
 * two threads are stored twice — so deleting a thread (`HistoryStore.deleteThread`) deletes its
 * attachments without counting references. A `HistoryStore` that keeps attachments exposes one
 * as `HistoryStore.attachments`.
 */
export interface AttachmentStore {
  /**
   * Stores `bytes` as attachment `attachmentId` of thread `threadId` (idempotent: the id is the
   * bytes' digest, so storing it again changes nothing).
   *
   * @throws SwitchboardError `history_error` when the storage fails; `aborted` when `signal`
   *   aborts before the write.
   */
  put(
    threadId: string,
    attachmentId: string,
    bytes: Blob,
    options?: { signal?: AbortSignal },
  ): Promise<void>;
  /**
   * The bytes of attachment `attachmentId` of thread `threadId`; `undefined` when not stored
   * (never stored, or the thread was deleted). The Blob's `type` may be empty: the MIME type
   * is the part's.
   *
   * @throws SwitchboardError `history_error` when the storage fails; `aborted` when `signal`
   *   aborts.
   */
  get(
    threadId: string,
    attachmentId: string,
    options?: { signal?: AbortSignal },
  ): Promise<Blob | undefined>;
}
