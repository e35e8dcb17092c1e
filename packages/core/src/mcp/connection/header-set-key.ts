import { SwitchboardError } from '../../errors/switchboard-error.ts';

/** Key of the empty header set (no hashing needed). */
const NO_HEADERS_KEY = 'headers:none';

/**
 * The key of one set of request headers, for telling per-user connections apart: `sha256:` and
 * the hex SHA-256 (WebCrypto) of the lowercased names and the values, sorted by name. Equal
 * sets (names in any case, any order) give equal keys; the key never contains a value.
 *
 * Where `crypto.subtle` is missing (a page served over plain http from a non-local host), the
 * key is `local:N`, a counter interned per distinct header set in `localKeys` (memory only,
 * owned by the caller so it lives no longer than the connection).
 *
 * @param headers Resolved header names and values.
 * @param localKeys Canonical header text → key, used only without WebCrypto.
 * @returns `headers:none` for an empty set, else `sha256:<64 hex>` (or `local:<n>`).
 * @throws SwitchboardError `invalid_input` when a name or value is not a valid HTTP header
 *   (the message does not quote the value).
 */
export async function headerSetKey(
  headers: Readonly<Record<string, string>>,
  localKeys: Map<string, string>,
): Promise<string> {
  let entries: [string, string][];
  try {
    entries = [...new Headers(headers).entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  } catch {
    // The validation message may quote the value: report without it and without a cause.
    throw new SwitchboardError(
      'invalid_input',
      'The MCP server headers contain an invalid header name or value.',
    );
  }
  if (entries.length === 0) return NO_HEADERS_KEY;
  const canonical = JSON.stringify(entries);
  const subtle = globalThis.crypto?.subtle;
  if (subtle === undefined) {
    let key = localKeys.get(canonical);
    if (key === undefined) {
      key = `local:${localKeys.size + 1}`;
      localKeys.set(canonical, key);
    }
    return key;
  }
  const digest = await subtle.digest('SHA-256', new TextEncoder().encode(canonical));
  const hex = [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0'));
  return `sha256:${hex.join('')}`;
}
