const SAFE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_LENGTH = 64;

/**
 * Maps tool names (with an optional prefix) to names every model API accepts,
 * `^[a-zA-Z0-9_-]{1,64}$` (docs/architecture.md, "Tool names"): other characters become `_`; names
 * over 64 characters are cut and get a stable hash suffix; collisions are resolved by suffixing
 * the hash of the original name, in sorted order of the originals, so the same server listing
 * always yields the same mapping (stored history keeps resolving after a reload).
 *
 * @returns a map from provider-safe name to original name, in the input order.
 */
export function mapProviderToolNames(
  originalNames: readonly string[],
  prefix = '',
): Map<string, string> {
  const { names } = toProviderToolNames(originalNames, prefix);
  const map = new Map<string, string>();
  originalNames.forEach((name, index) => map.set(names[index] as string, name));
  return map;
}

/** The provider names of a listing, by position (see {@link toProviderToolNames}). */
export interface ProviderToolNames {
  /** The provider name of each original name, at the same index. */
  names: string[];
  /**
   * True when an original name is listed more than once: it has the same provider name at each
   * of its positions, so `names` repeats too. False: every name in `names` is distinct.
   */
  repeated: boolean;
}

/**
 * The mapping of {@link mapProviderToolNames} by position, for a caller that holds the tools in
 * the listing's order and pairs them by index instead of looking each name up.
 */
export function toProviderToolNames(
  originalNames: readonly string[],
  prefix = '',
): ProviderToolNames {
  const unchanged = unchangedProviderNames(originalNames, prefix);
  return unchanged === undefined
    ? mapNames(originalNames, prefix)
    : { names: unchanged, repeated: false };
}

/**
 * `prefix + name` for every name when all of them are already provider-safe and unique, which is
 * what the general mapping gives such a listing (each keeps its exact form); `undefined`
 * otherwise. The common listing (a server whose names need no change) then costs one test and
 * one set insertion per name, not the candidates, counts and sort of {@link mapNames}.
 */
function unchangedProviderNames(
  originalNames: readonly string[],
  prefix: string,
): string[] | undefined {
  const names: string[] = [];
  const seen = new Set<string>();
  for (const name of originalNames) {
    const full = prefix + name;
    if (!SAFE_NAME.test(full) || seen.has(full)) return undefined;
    seen.add(full);
    names.push(full);
  }
  return names;
}

/** The general mapping (see {@link mapProviderToolNames}), by position. */
function mapNames(originalNames: readonly string[], prefix: string): ProviderToolNames {
  const byOriginal = new Map<string, string>();
  const taken = new Set<string>();
  // Names that are already safe and unique keep their exact form; the rest are mapped in sorted
  // order, which makes the result independent of listing order.
  const candidates = originalNames.map((name) => ({ name, safe: toSafeName(prefix + name) }));
  const counts = new Map<string, number>();
  for (const { safe } of candidates) counts.set(safe, (counts.get(safe) ?? 0) + 1);
  for (const { name, safe } of candidates) {
    if (counts.get(safe) === 1 && safe === prefix + name) {
      byOriginal.set(name, safe);
      taken.add(safe);
    }
  }
  for (const { name, safe } of [...candidates].sort((a, b) => compare(a.name, b.name))) {
    if (byOriginal.has(name)) continue;
    let mapped = counts.get(safe) === 1 && !taken.has(safe) ? safe : withHash(safe, name);
    for (let attempt = 1; taken.has(mapped); attempt++) {
      mapped = withHash(safe, `${name}#${attempt}`);
    }
    byOriginal.set(name, mapped);
    taken.add(mapped);
  }
  return {
    names: originalNames.map((name) => byOriginal.get(name) as string),
    repeated: byOriginal.size < originalNames.length,
  };
}

/** True when `name` is accepted by every model API as it is. */
export function isProviderSafeToolName(name: string): boolean {
  return SAFE_NAME.test(name);
}

function toSafeName(name: string): string {
  const replaced = name.replace(/[^a-zA-Z0-9_-]/g, '_') || '_';
  return replaced.length <= MAX_LENGTH ? replaced : withHash(replaced, name);
}

function withHash(base: string, seed: string): string {
  const suffix = `_${stableHash(seed)}`;
  return base.slice(0, MAX_LENGTH - suffix.length) + suffix;
}

/** FNV-1a, 32 bits, base 36: short, stable across sessions and runtimes. */
function stableHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36).padStart(7, '0');
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
