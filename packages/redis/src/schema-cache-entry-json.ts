import type { SchemaCacheEntry } from '@switchboard/core';

/**
 * A {@link SchemaCacheEntry} as JSON for Redis: only the entry's own fields (the rule of core's
 * caches: nothing else a caller attached, such as headers, is stored), with `expiresAt: Infinity`
 * written as `null` (JSON has no Infinity).
 *
 * @returns `undefined` when `entry` does not have the entry's shape: a `tools` array, a finite
 *   `storedAt`, a numeric `expiresAt` (not NaN).
 */
export function entryToJson(entry: SchemaCacheEntry): string | undefined {
  if (!hasEntryShape(entry)) return undefined;
  const copy: Record<string, unknown> = {
    tools: entry.tools,
    storedAt: entry.storedAt,
    expiresAt: entry.expiresAt === Infinity ? null : entry.expiresAt,
  };
  if (entry.protocolEra !== undefined) copy.protocolEra = entry.protocolEra;
  if (entry.protocolVersion !== undefined) copy.protocolVersion = entry.protocolVersion;
  if (entry.discover !== undefined) copy.discover = entry.discover;
  if (entry.serverInfo !== undefined) {
    copy.serverInfo = { name: entry.serverInfo.name, version: entry.serverInfo.version };
  }
  return JSON.stringify(copy);
}

/** The entry stored as `json`, or `undefined` when it is not one (a foreign or damaged value). */
export function entryFromJson(json: string): SchemaCacheEntry | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const entry = value as Record<string, unknown>;
  if (entry.expiresAt === null) entry.expiresAt = Infinity;
  return hasEntryShape(entry) ? (entry as unknown as SchemaCacheEntry) : undefined;
}

function hasEntryShape(value: object): boolean {
  const entry = value as Partial<SchemaCacheEntry>;
  return (
    Array.isArray(entry.tools) &&
    Number.isFinite(entry.storedAt) &&
    typeof entry.expiresAt === 'number' &&
    !Number.isNaN(entry.expiresAt)
  );
}
