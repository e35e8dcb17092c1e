import { open, rm, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { SwitchboardError } from '../errors/switchboard-error.ts';

/**
 * Cross-process mutual exclusion with a lock file, for stores that several processes share
 * through one directory (`JsonlHistoryStore`). No dependency: `O_EXCL` creation is atomic on
 * every local file system Node supports.
 */

/** How long a lock may be held before other writers take it as left by a dead process (ms). */
const STALE_LOCK_MS = 10_000;

/**
 * Runs `task` while holding the lock file `path` (created with `O_EXCL`, removed afterwards).
 * Waits (polling every few ms) while another writer holds it; removes a lock older than
 * {@link STALE_LOCK_MS}; gives up with `history_error` after {@link STALE_LOCK_MS}.
 */
export async function withLockFile<Result>(
  path: string,
  signal: AbortSignal | undefined,
  task: () => Promise<Result>,
): Promise<Result> {
  const deadline = Date.now() + STALE_LOCK_MS;
  for (;;) {
    if (signal?.aborted) {
      throw new SwitchboardError('aborted', 'The history operation was aborted.', {
        cause: signal.reason,
      });
    }
    try {
      const handle = await open(path, 'wx');
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const held = await stat(path).catch(() => undefined);
    if (held !== undefined && Date.now() - held.mtimeMs > STALE_LOCK_MS) {
      await breakStaleLock(path, held);
      continue;
    }
    if (Date.now() > deadline) {
      throw new SwitchboardError('history_error', `The lock file ${path} stayed taken.`);
    }
    await new Promise((resolve) => setTimeout(resolve, 2 + Math.random() * 8));
  }
  try {
    return await task();
  } finally {
    await rm(path, { force: true });
  }
}

/**
 * Removes a lock file left by a dead process. Several writers may find the same stale lock; if
 * each removed it, one could remove the fresh lock another had just taken, and two writers would
 * run at once. So only the writer holding `<path>.break` (created with `O_EXCL`) removes it, and
 * only while it is still the same file (inode) and still stale. A break lock left by a crash is
 * itself removed once stale (that needs a second crash within the break's few milliseconds to
 * go wrong).
 */
async function breakStaleLock(path: string, seen: Stats): Promise<void> {
  const breaker = `${path}.break`;
  try {
    await (await open(breaker, 'wx')).close();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const other = await stat(breaker).catch(() => undefined);
    if (other !== undefined && Date.now() - other.mtimeMs > STALE_LOCK_MS) {
      await rm(breaker, { force: true });
    }
    return;
  }
  try {
    const now = await stat(path).catch(() => undefined);
    if (now !== undefined && now.ino === seen.ino && Date.now() - now.mtimeMs > STALE_LOCK_MS) {
      await rm(path, { force: true });
    }
  } finally {
    await rm(breaker, { force: true });
  }
}
