import { createHash } from 'node:crypto';

/** Longest encoded thread id kept as it is; longer ones are shortened with a hash (bytes). */
const MAX_ENCODED_LENGTH = 160;
const UTF8 = new TextEncoder();
/** A UTF-16 code unit that is half of a surrogate pair without its other half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Device names Windows reserves whatever the extension. */
const RESERVED_NAMES = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/;

/**
 * The file name (without extension) of a thread: reversible escaping of everything outside
 * `[a-z0-9_-]`, or a cut escape plus a SHA-256 when the escape would be too long.
 */
export function encodeThreadId(threadId: string): string {
  if (threadId === '') return '~';
  if (LONE_SURROGATE.test(threadId)) {
    // UTF-8 would turn every lone surrogate into U+FFFD: hash the UTF-16 code units instead.
    return `~~${createHash('sha256').update(Buffer.from(threadId, 'utf16le')).digest('hex')}`;
  }
  let encoded = '';
  for (const character of threadId) {
    if (/^[a-z0-9_-]$/.test(character)) {
      encoded += character;
    } else {
      for (const byte of UTF8.encode(character)) {
        encoded += `~${byte.toString(16).padStart(2, '0')}`;
      }
    }
  }
  if (RESERVED_NAMES.test(encoded)) {
    encoded = `~${encoded.charCodeAt(0).toString(16)}${encoded.slice(1)}`;
  }
  if (encoded.length > MAX_ENCODED_LENGTH) {
    // `~~` never occurs in an escape (every `~` there is followed by two hex digits).
    const digest = createHash('sha256').update(threadId, 'utf8').digest('hex');
    encoded = `${encoded.slice(0, MAX_ENCODED_LENGTH - 66)}~~${digest}`;
  }
  return encoded;
}
