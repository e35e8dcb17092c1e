/**
 * What a {@link SchemaCache} keeps for one MCP server (one key from `schemaCacheKey`): its tool
 * listing and what a zero-round-trip reconnect needs. Plain, structured-cloneable data; never
 * headers, tokens or other credentials (docs/architecture.md, "Security rules").
 */
export interface SchemaCacheEntry {
  /** The MCP `Tool` objects as the server listed them (every page, in order). */
  tools: unknown[];
  /** When the entry was stored, in ms since the epoch. */
  storedAt: number;
  /**
   * When the entry stops being served, in ms since the epoch (`storedAt` + the client's TTL);
   * `Infinity` never expires.
   */
  expiresAt: number;
  /** `modern` (2026-07-28, stateless) or `legacy` (`initialize` era). */
  protocolEra?: 'modern' | 'legacy';
  /** The negotiated protocol version, such as `2025-11-25`. */
  protocolVersion?: string;
  /** The cached `server/discover` result, for a zero-round-trip reconnect. */
  discover?: unknown;
  serverInfo?: { name: string; version: string };
}

/** Options every {@link SchemaCache} method takes. */
export interface SchemaCacheCallOptions {
  signal?: AbortSignal;
}

/**
 * A change to a {@link SchemaCache} that {@link SchemaCache.watch} reports: an entry stored (with
 * its `storedAt`, which tells one listing from another), an entry deleted, or every entry
 * cleared.
 */
export type SchemaCacheChange =
  | { kind: 'set'; key: string; storedAt: number }
  | { kind: 'delete'; key: string }
  | { kind: 'clear' };

/**
 * Where MCP clients keep tool listings between sessions (docs/architecture.md, "The life of an MCP
 * call"). Implementations:
 * `MemorySchemaCache` (per page or process), `IndexedDbSchemaCache` (survives reloads) and,
 * for servers, `RedisSchemaCache` in `@switchboard/redis` (shared by every process).
 *
 * Keys come from `schemaCacheKey` and contain no secrets. The client decides the TTL (it sets
 * `expiresAt`); caches only honour it: an entry whose `expiresAt` has passed is never returned
 * (`get` resolves `undefined` and deletes it). Every method rejects with `SwitchboardError`
 * `aborted` when its `signal` aborts.
 */
export interface SchemaCache {
  /** The live entry for `key`, or `undefined` when there is none or it has expired. */
  get(key: string, options?: SchemaCacheCallOptions): Promise<SchemaCacheEntry | undefined>;
  /**
   * Stores `entry` under `key`, replacing any earlier one. Only the fields of
   * {@link SchemaCacheEntry} are kept; anything else on the object is dropped.
   */
  set(key: string, entry: SchemaCacheEntry, options?: SchemaCacheCallOptions): Promise<void>;
  /** Removes the entry for `key`; unknown keys are ignored. */
  delete(key: string, options?: SchemaCacheCallOptions): Promise<void>;
  /** Removes every entry. */
  clear(options?: SchemaCacheCallOptions): Promise<void>;
  /**
   * Optional, for caches shared by several processes (`RedisSchemaCache` in
   * `@switchboard/redis`): calls `listener` for every change any client of the shared cache
   * makes, this one included. An `McpServer` holding a listing then drops it when another
   * process re-listed after `list_changed` (and reads the new one from the cache) or
   * invalidated it. Returns the function that stops the calls.
   */
  watch?(listener: (change: SchemaCacheChange) => void): () => void;
}

/**
 * A copy of `entry` with only the {@link SchemaCacheEntry} fields, so that nothing else a caller
 * attached (such as headers) is ever stored. Internal to the cache implementations.
 */
export function pickSchemaCacheEntry(entry: SchemaCacheEntry): SchemaCacheEntry {
  const copy: SchemaCacheEntry = {
    tools: entry.tools,
    storedAt: entry.storedAt,
    expiresAt: entry.expiresAt,
  };
  if (entry.protocolEra !== undefined) copy.protocolEra = entry.protocolEra;
  if (entry.protocolVersion !== undefined) copy.protocolVersion = entry.protocolVersion;
  if (entry.discover !== undefined) copy.discover = entry.discover;
  if (entry.serverInfo !== undefined) {
    copy.serverInfo = { name: entry.serverInfo.name, version: entry.serverInfo.version };
  }
  return copy;
}

/**
 * Whether `value` has the shape of a {@link SchemaCacheEntry}: `tools` an array, `storedAt` a
 * finite number, `expiresAt` a number (`Infinity` never expires; `NaN` is refused). Internal.
 */
export function isSchemaCacheEntry(value: unknown): value is SchemaCacheEntry {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Partial<SchemaCacheEntry>;
  return (
    Array.isArray(entry.tools) &&
    Number.isFinite(entry.storedAt) &&
    typeof entry.expiresAt === 'number' &&
    !Number.isNaN(entry.expiresAt)
  );
}
