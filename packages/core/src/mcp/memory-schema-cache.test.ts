import { describe, expect, it } from 'vitest';
import { isSwitchboardError } from '../errors/switchboard-error.ts';
import { MemorySchemaCache } from './memory-schema-cache.ts';
import type { SchemaCacheEntry } from './schema-cache.ts';

function entry(storedAt: number, ttlMs: number): SchemaCacheEntry {
  return {
    tools: [{ name: 'echo', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }],
    storedAt,
    expiresAt: storedAt + ttlMs,
    protocolEra: 'modern',
    protocolVersion: '2026-07-28',
    discover: { capabilities: { tools: {} } },
    serverInfo: { name: 'demo', version: '1.0.0' },
  };
}

describe('MemorySchemaCache', () => {
  it('returns a stored entry until expiresAt, then undefined, and forgets it', async () => {
    let now = 1_000;
    const cache = new MemorySchemaCache({ now: () => now });
    await cache.set('k', entry(1_000, 500));

    now = 1_499;
    expect(await cache.get('k')).toEqual(entry(1_000, 500));
    now = 1_500;
    expect(await cache.get('k')).toBeUndefined();
    // Deleted on that read: even a clock going back does not revive it.
    now = 1_000;
    expect(await cache.get('k')).toBeUndefined();
  });

  it('keeps entries with expiresAt Infinity', async () => {
    const cache = new MemorySchemaCache({ now: () => Number.MAX_SAFE_INTEGER });
    await cache.set('k', { tools: [], storedAt: 0, expiresAt: Number.POSITIVE_INFINITY });
    expect(await cache.get('k')).toEqual({
      tools: [],
      storedAt: 0,
      expiresAt: Number.POSITIVE_INFINITY,
    });
  });

  it('deletes one key and clears all', async () => {
    const cache = new MemorySchemaCache({ now: () => 0 });
    await cache.set('a', entry(0, 100));
    await cache.set('b', entry(0, 100));
    await cache.set('c', entry(0, 100));
    await cache.delete('a');
    await cache.delete('missing');
    expect(await cache.get('a')).toBeUndefined();
    expect(await cache.get('b')).toBeDefined();
    await cache.clear();
    expect(await cache.get('b')).toBeUndefined();
    expect(await cache.get('c')).toBeUndefined();
  });

  it('stores copies with only the entry fields (no headers sneak in)', async () => {
    const cache = new MemorySchemaCache({ now: () => 0 });
    const original = { ...entry(0, 100), headers: { authorization: 'Bearer secret' } };
    await cache.set('k', original);
    original.tools.push({ name: 'mutated' });
    const stored = await cache.get('k');
    expect(stored).toEqual(entry(0, 100));
    expect(JSON.stringify(stored)).not.toContain('secret');
    stored?.tools.pop();
    expect(await cache.get('k')).toEqual(entry(0, 100));
  });

  it('refuses malformed entries with invalid_input', async () => {
    const cache = new MemorySchemaCache();
    const bad = [
      { tools: 'nope', storedAt: 0, expiresAt: 1 },
      { tools: [], storedAt: Number.NaN, expiresAt: 1 },
      { tools: [], storedAt: 0, expiresAt: Number.NaN },
      { tools: [() => 1], storedAt: 0, expiresAt: 1 },
    ];
    for (const value of bad) {
      const error: unknown = await cache
        .set('k', value as unknown as SchemaCacheEntry)
        .catch((failure: unknown) => failure);
      expect(isSwitchboardError(error, 'invalid_input')).toBe(true);
    }
  });

  it('rejects with aborted when the signal is aborted', async () => {
    const cache = new MemorySchemaCache();
    const signal = AbortSignal.abort();
    for (const call of [
      cache.get('k', { signal }),
      cache.set('k', entry(0, 1), { signal }),
      cache.delete('k', { signal }),
      cache.clear({ signal }),
    ]) {
      const error: unknown = await call.catch((failure: unknown) => failure);
      expect(isSwitchboardError(error, 'aborted')).toBe(true);
    }
  });
});
