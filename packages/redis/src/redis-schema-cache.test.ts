import { createClient } from '@redis/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  isSwitchboardError,
  type SchemaCacheChange,
  type SchemaCacheEntry,
} from '@switchboard/core';
import { startRedisServer, type RedisTestServer } from '@switchboard/fixtures';
import { RedisSchemaCache, type RedisSchemaCacheOptions } from './redis-schema-cache.ts';

// One throwaway redis-server for this file (127.0.0.1, no persistence), stopped afterwards; a
// fresh key prefix per test.
let redis: RedisTestServer;
let raw: ReturnType<typeof createClient>;
beforeAll(async () => {
  redis = await startRedisServer();
  raw = createClient({ url: redis.url });
  await raw.connect();
}, 30_000);
afterAll(async () => {
  await raw.close();
  await redis.close();
});

const caches: RedisSchemaCache[] = [];
afterEach(async () => {
  await Promise.all(caches.splice(0).map((cache) => cache.close()));
});
let prefixes = 0;
function freshPrefix(): string {
  prefixes += 1;
  return `test-${prefixes}:`;
}
function cache(options: Partial<RedisSchemaCacheOptions> = {}): RedisSchemaCache {
  const made = new RedisSchemaCache({ url: redis.url, ...options });
  caches.push(made);
  return made;
}

function entry(
  now: number,
  ttlMs: number,
  extra: Partial<SchemaCacheEntry> = {},
): SchemaCacheEntry {
  return {
    tools: [
      { name: 'add', inputSchema: { type: 'object', properties: { a: { type: 'number' } } } },
    ],
    storedAt: now,
    expiresAt: now + ttlMs,
    protocolEra: 'modern',
    protocolVersion: '2026-07-28',
    serverInfo: { name: 'demo', version: '1.0.0' },
    ...extra,
  };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('RedisSchemaCache', () => {
  it('shares entries between caches on one Redis, keeping only the entry fields', async () => {
    const keyPrefix = freshPrefix();
    const writer = cache({ keyPrefix });
    const reader = cache({ keyPrefix });
    const now = Date.now();
    const stored = { ...entry(now, 60_000), headers: { authorization: 'Bearer secret-token' } };
    await writer.set('server-a', stored as SchemaCacheEntry);

    expect(await reader.get('server-a')).toEqual(entry(now, 60_000));
    expect(await reader.get('server-b')).toBeUndefined();
    expect(await raw.get(`${keyPrefix}server-a`)).not.toContain('secret-token');
  });

  it('sets a Redis expiry at expiresAt, and refuses and deletes an entry expired by its clock', async () => {
    const keyPrefix = freshPrefix();
    let now = 1_000_000;
    const clocked = cache({ keyPrefix, now: () => now });
    await clocked.set('k', entry(now, 30_000));
    // Redis drops it by itself when the TTL runs out.
    const pttl = await raw.pTTL(`${keyPrefix}k`);
    expect(pttl).toBeGreaterThan(29_000);
    expect(pttl).toBeLessThanOrEqual(30_000);

    now += 29_999;
    expect(await clocked.get('k')).toEqual(entry(1_000_000, 30_000));
    now += 1;
    expect(await clocked.get('k')).toBeUndefined();
    expect(await raw.exists(`${keyPrefix}k`)).toBe(0);

    // An entry already expired when stored is not kept (nor is an older one left behind).
    await clocked.set('k', entry(now, 60_000));
    await clocked.set('k', entry(now - 10, 5));
    expect(await raw.exists(`${keyPrefix}k`)).toBe(0);
  });

  it('keeps an entry that never expires (expiresAt Infinity) without a Redis expiry', async () => {
    const keyPrefix = freshPrefix();
    const forever = cache({ keyPrefix });
    const now = Date.now();
    await forever.set('k', entry(now, Infinity));
    expect(await forever.get('k')).toEqual(entry(now, Infinity));
    expect(await raw.pTTL(`${keyPrefix}k`)).toBe(-1);
  });

  it('deletes one entry, and clears only the entries under its own prefix', async () => {
    const keyPrefix = freshPrefix();
    const mine = cache({ keyPrefix });
    const other = cache({ keyPrefix: freshPrefix() });
    const now = Date.now();
    for (const key of ['a', 'b', 'c']) await mine.set(key, entry(now, 60_000));
    await other.set('a', entry(now, 60_000));

    await mine.delete('a');
    await mine.delete('missing');
    expect(await mine.get('a')).toBeUndefined();
    expect(await mine.get('b')).toBeDefined();

    await mine.clear();
    expect(await mine.get('b')).toBeUndefined();
    expect(await mine.get('c')).toBeUndefined();
    expect(await other.get('a')).toEqual(entry(now, 60_000));
  });

  it('refuses a malformed entry with invalid_input', async () => {
    const error = await failure(
      cache().set('k', { tools: 'no', storedAt: 1, expiresAt: 2 } as unknown as SchemaCacheEntry),
    );
    expect(isSwitchboardError(error, 'invalid_input')).toBe(true);
  });

  it('reports every change any cache on the same prefix makes to its watchers', async () => {
    const keyPrefix = freshPrefix();
    const watcher = cache({ keyPrefix });
    const writer = cache({ keyPrefix });
    const seen: SchemaCacheChange[] = [];
    const stop = watcher.watch((change) => seen.push(change));
    await watcher.watching();

    await writer.set('k', entry(5_000_000_000_000, 60_000));
    await writer.delete('k');
    await writer.clear();
    await expect.poll(() => seen.length).toBe(3);
    expect(seen).toEqual([
      { kind: 'set', key: 'k', storedAt: 5_000_000_000_000 },
      { kind: 'delete', key: 'k' },
      { kind: 'clear' },
    ]);

    // After the last listener leaves, nothing more is reported (and the subscription ends).
    stop();
    const other = cache({ keyPrefix });
    const later: SchemaCacheChange[] = [];
    other.watch((change) => later.push(change));
    await other.watching();
    await writer.delete('k');
    await expect.poll(() => later.length).toBe(1);
    expect(seen).toHaveLength(3);
  });

  it('rejects with aborted when the signal has aborted, writing nothing', async () => {
    const keyPrefix = freshPrefix();
    const aborting = cache({ keyPrefix });
    const controller = new AbortController();
    controller.abort(new Error('user left'));
    const { signal } = controller;
    for (const call of [
      aborting.get('k', { signal }),
      aborting.set('k', entry(Date.now(), 60_000), { signal }),
      aborting.delete('k', { signal }),
      aborting.clear({ signal }),
    ]) {
      expect(isSwitchboardError(await failure(call), 'aborted')).toBe(true);
    }
    expect(await raw.exists(`${keyPrefix}k`)).toBe(0);
  });

  it('fails with history_error, not a hang, when Redis cannot be reached', async () => {
    // Port 1: nothing listens, the connection is refused.
    const unreachable = cache({ url: 'redis://127.0.0.1:1', timeoutMs: 2_000 });
    const error = await failure(unreachable.get('k'));
    expect(isSwitchboardError(error, 'history_error') || isSwitchboardError(error, 'timeout')).toBe(
      true,
    );
  });
});
