import { SwitchboardError } from '../errors/switchboard-error.ts';
import type { AttachmentStore } from './attachment-store.ts';

/**
 * An {@link AttachmentStore} in memory (`MemoryHistoryStore.attachments`): lost with the page or
 * process, as the memory history is. Blobs are immutable, so they are kept as given.
 */
export class MemoryAttachmentStore implements AttachmentStore {
  readonly #threads = new Map<string, Map<string, Blob>>();

  async put(
    threadId: string,
    attachmentId: string,
    bytes: Blob,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    await settle(options.signal);
    let thread = this.#threads.get(threadId);
    if (thread === undefined) {
      thread = new Map();
      this.#threads.set(threadId, thread);
    }
    thread.set(attachmentId, bytes);
  }

  async get(
    threadId: string,
    attachmentId: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<Blob | undefined> {
    await settle(options.signal);
    return this.#threads.get(threadId)?.get(attachmentId);
  }

  /** Drops every attachment of `threadId` (called by `MemoryHistoryStore.deleteThread`). */
  deleteThread(threadId: string): void {
    this.#threads.delete(threadId);
  }
}

async function settle(signal: AbortSignal | undefined): Promise<void> {
  await Promise.resolve();
  if (signal?.aborted) {
    throw new SwitchboardError('aborted', 'The attachment operation was aborted.', {
      cause: signal.reason,
    });
  }
}
