import { open, type FileHandle } from 'node:fs/promises';
import { applyRunLine, type StoredRow } from './jsonl-run-lines.ts';

/**
 * What a `JsonlHistoryStore` knows of one thread file, so that a later read only parses the
 * bytes appended since (by this instance or any other process): the rows, how far the file was
 * read, and what identifies the file. A file deleted and recreated (another device or inode),
 * shorter than what was read, or with other bytes just before that point (rewritten in place, or
 * recreated on the same inode) is read whole again.
 */
export interface ThreadFile {
  threadId: string;
  /** `dev:ino` of the file; `undefined` when it does not exist. */
  identity: string | undefined;
  /** Bytes read and parsed: up to and including the newline of the last complete line. */
  offset: number;
  /** The last bytes (up to {@link TAIL_BYTES}) before `offset`. */
  tail: Buffer;
  /** The rows by `runId`, in the order of their first line. */
  rows: Map<string, StoredRow>;
}

/** How many bytes before the read offset are compared to recognise the same file. */
const TAIL_BYTES = 64;
const NEWLINE = 0x0a;

/**
 * The thread file at `path`, read from where `known` stopped when it is still the same file
 * (`known` is updated in place and returned), else read whole. A last line without its newline
 * (being written by another process, or torn by a crash) is left for a later read.
 */
export async function readThreadFile(
  path: string,
  threadId: string,
  known: ThreadFile | undefined,
): Promise<ThreadFile> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return emptyThreadFile(threadId);
    throw error;
  }
  try {
    const { identity, size } = await identify(handle);
    if (known !== undefined && known.identity === identity && size >= known.offset) {
      const from = known.offset - known.tail.length;
      const bytes = await readRange(handle, from, size);
      if (bytes.subarray(0, known.tail.length).equals(known.tail)) {
        consumeLines(known, bytes, from, known.tail.length);
        return known;
      }
    }
    const file: ThreadFile = { ...emptyThreadFile(threadId), identity };
    consumeLines(file, await readRange(handle, 0, size), 0, 0);
    return file;
  } finally {
    await handle.close();
  }
}

/**
 * Appends `line` (newline included) to the thread file, which `file` describes as just read
 * while holding the thread's lock, and applies it to `file`. A last line without its newline (a
 * torn write) is ended first, as readers will see it. When the file is not the one `file` read
 * (replaced by something that ignored the lock), `fullLine()` is written instead, since a delta
 * line's base may not be in it, and `file` is marked to be read whole next time.
 */
export async function appendToThreadFile(
  path: string,
  file: ThreadFile,
  line: string,
  fullLine: () => string,
): Promise<void> {
  const handle = await open(path, 'a+');
  try {
    const { identity, size } = await identify(handle);
    if ((file.identity !== undefined && file.identity !== identity) || size < file.offset) {
      await handle.appendFile(await separated(handle, size, fullLine()), 'utf8');
      file.identity = 'stale';
      return;
    }
    file.identity = identity;
    let text = line;
    if (size > file.offset) {
      // Unread bytes under the lock: a torn last line, which the newline below ends.
      const restStart = file.offset;
      const rest = await readRange(handle, restStart, size);
      consumeLines(file, rest, restStart, 0);
      if (file.offset < restStart + rest.length) {
        const torn = rest.toString('utf8', file.offset - restStart);
        applyRunLine(file.rows, torn, file.offset, file.threadId);
      }
      text = await separated(handle, size, line);
    }
    await handle.appendFile(text, 'utf8');
    const bytes = Buffer.from(text, 'utf8');
    const lineStart = size + bytes.length - Buffer.byteLength(line);
    applyRunLine(file.rows, line.slice(0, -1), lineStart, file.threadId);
    file.offset = size + bytes.length;
    file.tail = Buffer.from(bytes.subarray(Math.max(0, bytes.length - TAIL_BYTES)));
  } finally {
    await handle.close();
  }
}

/**
 * The cursor of `file` as read: its identity, read offset and the bytes before it (opaque to
 * callers of `loadRunChanges`).
 */
export function threadCursor(file: ThreadFile): string {
  if (file.identity === undefined) return JSON.stringify(['jsonl', 1, null]);
  return JSON.stringify(['jsonl', 1, file.identity, file.offset, file.tail.toString('base64')]);
}

/**
 * Where `cursor` points in `file` (read just now): the byte offset from which the rows written
 * since start, or `undefined` when the cursor is not one of this file (another file, recreated,
 * rewritten, or not a cursor at all) and the caller needs every row.
 */
export async function cursorOffset(
  path: string,
  file: ThreadFile,
  cursor: string,
): Promise<number | undefined> {
  let parts: unknown;
  try {
    parts = JSON.parse(cursor);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parts) || parts[0] !== 'jsonl' || parts[1] !== 1) return undefined;
  const [, , identity, offset, tail] = parts as unknown[];
  if (identity === null) return file.identity === undefined ? 0 : undefined;
  if (identity !== file.identity || typeof offset !== 'number' || typeof tail !== 'string') {
    return undefined;
  }
  if (!Number.isSafeInteger(offset) || offset < 0 || offset > file.offset) return undefined;
  const expected = Buffer.from(tail, 'base64');
  if (expected.length > offset) return undefined;
  if (offset === file.offset) return expected.equals(file.tail) ? offset : undefined;
  const handle = await open(path, 'r').catch(() => undefined);
  if (handle === undefined) return undefined;
  try {
    const found = await readRange(handle, offset - expected.length, offset);
    return found.equals(expected) ? offset : undefined;
  } finally {
    await handle.close();
  }
}

function emptyThreadFile(threadId: string): ThreadFile {
  return { threadId, identity: undefined, offset: 0, tail: Buffer.alloc(0), rows: new Map() };
}

async function identify(handle: FileHandle): Promise<{ identity: string; size: number }> {
  const stats = await handle.stat({ bigint: true });
  // No birth time: where a platform lacks one, Node reports the change time, which every
  // append moves. A recreated file that reuses the inode is caught by the size and tail checks.
  return {
    identity: `${stats.dev}:${stats.ino}`,
    size: Number(stats.size),
  };
}

/** `text`, after a newline when the file (of `size` bytes) does not end with one. */
async function separated(handle: FileHandle, size: number, text: string): Promise<string> {
  if (size === 0) return text;
  const last = await readRange(handle, size - 1, size);
  return last[0] === NEWLINE ? text : `\n${text}`;
}

/** Bytes `from` to `to` of the file (fewer when it is shorter now). */
async function readRange(handle: FileHandle, from: number, to: number): Promise<Buffer> {
  const buffer = Buffer.alloc(to - from);
  let filled = 0;
  while (filled < buffer.length) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, from + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/**
 * Applies the complete lines of `bytes` (which start at file offset `start`), from index `skip`
 * on, and moves `file.offset` and `file.tail` past the last one.
 */
function consumeLines(file: ThreadFile, bytes: Buffer, start: number, skip: number): void {
  let position = skip;
  for (;;) {
    const end = bytes.indexOf(NEWLINE, position);
    if (end === -1) break;
    applyRunLine(file.rows, bytes.toString('utf8', position, end), start + position, file.threadId);
    position = end + 1;
  }
  if (position === skip) return;
  file.offset = start + position;
  file.tail = Buffer.from(bytes.subarray(Math.max(0, position - TAIL_BYTES), position));
}
