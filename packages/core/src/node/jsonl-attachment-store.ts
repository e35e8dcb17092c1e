import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { messageOf } from '../errors/message-of.ts';
import { SwitchboardError } from '../errors/switchboard-error.ts';
import type { AttachmentStore } from '../history/attachment-store.ts';
import { encodeThreadId } from './thread-file-name.ts';

/**
 * The folder of a thread's attachments beside its `.jsonl` file: `<encoded threadId>.attachments`
 * (the thread file name's encoding, see `JsonlHistoryStore`).
 */
export function threadAttachmentDirectory(directory: string, threadId: string): string {
  return join(directory, `${encodeThreadId(threadId)}.attachments`);
}

/**
 * The {@link AttachmentStore} of `JsonlHistoryStore` (its `attachments`): one file per
 * attachment, the raw bytes, in the thread's `<encoded threadId>.attachments` folder beside its
 * thread file; the file name is the attachment id under the same safe encoding as thread ids.
 * A file is written whole under a temporary name, fsynced, then renamed, so a reader never sees
 * half of one; writing an id again replaces it with the same bytes. `JsonlHistoryStore.deleteThread`
 * removes the folder.
 *
 * Rejects with `history_error` (the file system error as `cause`) and `aborted`.
 */
export class JsonlAttachmentStore implements AttachmentStore {
  readonly #directory: string;

  constructor(directory: string) {
    this.#directory = directory;
  }

  async put(
    threadId: string,
    attachmentId: string,
    bytes: Blob,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    const { signal } = options;
    await guard(signal, 'store the attachment', async () => {
      const folder = threadAttachmentDirectory(this.#directory, threadId);
      await mkdir(folder, { recursive: true });
      const target = join(folder, encodeThreadId(attachmentId));
      const temporary = `${target}.${randomUUID()}.tmp`;
      const data = new Uint8Array(await bytes.arrayBuffer());
      throwIfAborted(signal);
      try {
        const handle = await open(temporary, 'w');
        try {
          await handle.writeFile(data);
          await handle.sync();
        } finally {
          await handle.close();
        }
        await rename(temporary, target);
      } catch (error) {
        await rm(temporary, { force: true }).catch(() => undefined);
        throw error;
      }
    });
  }

  async get(
    threadId: string,
    attachmentId: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<Blob | undefined> {
    const { signal } = options;
    return await guard(signal, 'read the attachment', async () => {
      const path = join(
        threadAttachmentDirectory(this.#directory, threadId),
        encodeThreadId(attachmentId),
      );
      try {
        const data = await readFile(path, signal === undefined ? {} : { signal });
        return new Blob([data]);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    });
  }
}

async function guard<Result>(
  signal: AbortSignal | undefined,
  what: string,
  task: () => Promise<Result>,
): Promise<Result> {
  throwIfAborted(signal);
  try {
    const result = await task();
    throwIfAborted(signal);
    return result;
  } catch (error) {
    if (error instanceof SwitchboardError) throw error;
    if (signal?.aborted) throw abortedError(signal);
    throw new SwitchboardError('history_error', `Could not ${what}: ${messageOf(error)}`, {
      cause: error,
    });
  }
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortedError(signal);
}

function abortedError(signal: AbortSignal): SwitchboardError {
  return new SwitchboardError('aborted', 'The attachment operation was aborted.', {
    cause: signal.reason,
  });
}
