import { createClient, type RedisClientType } from '@redis/client';
import {
  SwitchboardError,
  isSwitchboardError,
  type SchemaCache,
  type SchemaCacheCallOptions,
  type SchemaCacheChange,
  type SchemaCacheEntry,
} from '@switchboard/core';
import { entryFromJson, entryToJson } from './schema-cache-entry-json.ts';

/** Options of {@link RedisSchemaCache}. */
export interface RedisSchemaCacheOptions {
  /**
   * The Redis server: `redis://[[user]:password@]host[:port][/db]`, or `rediss://` for TLS. The
   * cache opens its own connections (one for commands, one for change messages).
   */
  url: string;
  /**
   * Put before every key, and before the change channel's name (`<keyPrefix>changes`). Caches
   * that should share listings use the same prefix. Default `'switchboard:schema-cache:'`.
   */
  keyPrefix?: string;
  /** How long one operation (connecting included) may take, in ms. Default 5 000. */
  timeoutMs?: number;
  /** The clock, in ms since the epoch, that expiry is judged by. Default `Date.now`. */
  now?: () => number;
}

const DEFAULT_KEY_PREFIX = 'switchboard:schema-cache:';
const DEFAULT_TIMEOUT_MS = 5_000;
/** Deletes `KEYS[1]` only while it still holds `ARGV[1]` (a fresher entry is kept). */
const DELETE_IF_UNCHANGED =
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";

type Client = RedisClientType;

/** A client being connected (see `#connect`). */
interface Connecting {
  client: Client;
  ready: Promise<Client>;
}

/**
 * A `SchemaCache` in Redis (through node-redis, `@redis/client`): one MCP server's tool listing
 * is fetched once for a fleet of processes, not once per process (docs/scale.md).
 *
 * Each entry is one Redis string at `keyPrefix` + the `schemaCacheKey` (which holds no
 * secret), holding only the `SchemaCacheEntry` fields as JSON, with a Redis expiry at the
 * entry's `expiresAt` (the server's `ttlMs`, else the client's `cacheTtlMs`), so Redis drops
 * what expired; a read also refuses (and deletes) an entry whose `expiresAt` has passed by this
 * process's clock. `cacheScope` needs nothing more: the key carries a digest of the credentials
 * sent, so a `private` listing is only ever served to the same credentials.
 *
 * Every `set`, `delete` and `clear` is announced on the pub/sub channel `<keyPrefix>changes`;
 * {@link watch} reports them, which is how an `McpServer` in one process drops its listing when
 * another process saw `list_changed` and stored the new one. Pub/sub delivers to connected
 * clients only: a process that was disconnected meanwhile keeps its listing until it expires.
 *
 * @throws SwitchboardError from every method: `history_error` when Redis fails (the error as
 *   `cause`; callers may treat it as a cache miss), `timeout` after `timeoutMs`, `aborted` when
 *   `signal` aborts, and from `set` `invalid_input` for a malformed entry.
 */
export class RedisSchemaCache implements SchemaCache {
  readonly #url: string;
  readonly #prefix: string;
  readonly #channel: string;
  readonly #timeoutMs: number;
  readonly #now: () => number;
  readonly #listeners = new Set<(change: SchemaCacheChange) => void>();
  #subscribed: Promise<void> | undefined;
  #client: Connecting | undefined;
  #subscriber: Connecting | undefined;
  #closed = false;

  constructor(options: RedisSchemaCacheOptions) {
    this.#url = options.url;
    this.#prefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
    this.#channel = `${this.#prefix}changes`;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#now = options.now ?? Date.now;
  }

  /** The live entry for `key`, or `undefined` (an entry expired by this clock is deleted). */
  async get(
    key: string,
    options: SchemaCacheCallOptions = {},
  ): Promise<SchemaCacheEntry | undefined> {
    return await this.#run('read the schema cache', options.signal, async (client) => {
      const json = await client.get(this.#prefix + key);
      if (json === null) return undefined;
      const entry = entryFromJson(json);
      if (entry !== undefined && this.#now() < entry.expiresAt) return entry;
      await client.eval(DELETE_IF_UNCHANGED, { keys: [this.#prefix + key], arguments: [json] });
      return undefined;
    });
  }

  /** Stores `entry`'s `SchemaCacheEntry` fields under `key` until its `expiresAt`. */
  async set(
    key: string,
    entry: SchemaCacheEntry,
    options: SchemaCacheCallOptions = {},
  ): Promise<void> {
    const json = entryToJson(entry);
    if (json === undefined) {
      throw new SwitchboardError(
        'invalid_input',
        'A schema cache entry needs a tools array, a finite storedAt and a numeric expiresAt.',
      );
    }
    await this.#run('write the schema cache', options.signal, async (client) => {
      const ttlMs = Math.ceil(entry.expiresAt - this.#now());
      if (ttlMs <= 0) {
        // Already expired: nothing to serve, and an older entry must not outlive it.
        await client.del(this.#prefix + key);
      } else if (entry.expiresAt === Infinity) {
        await client.set(this.#prefix + key, json);
      } else {
        await client.set(this.#prefix + key, json, { expiration: { type: 'PX', value: ttlMs } });
      }
      await this.#announce(client, { kind: 'set', key, storedAt: entry.storedAt });
    });
  }

  /** Removes the entry for `key`; unknown keys are ignored. */
  async delete(key: string, options: SchemaCacheCallOptions = {}): Promise<void> {
    await this.#run('delete from the schema cache', options.signal, async (client) => {
      await client.del(this.#prefix + key);
      await this.#announce(client, { kind: 'delete', key });
    });
  }

  /** Removes every entry under `keyPrefix` (SCAN, then DEL in batches). */
  async clear(options: SchemaCacheCallOptions = {}): Promise<void> {
    await this.#run('clear the schema cache', options.signal, async (client) => {
      const pattern = `${this.#prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
      for await (const keys of client.scanIterator({ MATCH: pattern, COUNT: 500 })) {
        const entries = keys.filter((name) => name !== this.#channel);
        if (entries.length > 0) await client.del(entries);
      }
      await this.#announce(client, { kind: 'clear' });
    });
  }

  /**
   * Calls `listener` for every change any cache on the same Redis and `keyPrefix` makes (this
   * one included), from the moment the subscription is confirmed. Subscribes on the first
   * listener and unsubscribes after the last. A listener that throws does not stop the others.
   */
  watch(listener: (change: SchemaCacheChange) => void): () => void {
    this.#listeners.add(listener);
    this.#subscribe();
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) void this.#unsubscribe();
    };
  }

  /** Resolves once the change subscription is live (for tests and orderly start-ups). */
  async watching(): Promise<void> {
    await this.#subscribed;
  }

  /** Closes both connections. Later calls reject with `history_error`. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#listeners.clear();
    const connections = [this.#client, this.#subscriber];
    this.#client = undefined;
    this.#subscriber = undefined;
    this.#subscribed = undefined;
    await Promise.all(connections.map((connection) => closeClient(connection, this.#timeoutMs)));
  }

  async #announce(client: Client, change: SchemaCacheChange): Promise<void> {
    await client.publish(this.#channel, JSON.stringify(change));
  }

  #subscribe(): void {
    if (this.#subscriber !== undefined || this.#closed) return;
    const subscriber = this.#connect();
    this.#subscriber = subscriber;
    this.#subscribed = subscriber.ready
      .then((client) =>
        client.subscribe(this.#channel, (message) => {
          const change = parseChange(message);
          if (change === undefined) return;
          for (const listener of [...this.#listeners]) {
            try {
              listener(change);
            } catch (error) {
              reportError(error);
            }
          }
        }),
      )
      .catch(() => {
        // Not subscribed (Redis unreachable): the next watch() tries again.
        if (this.#subscriber === subscriber) {
          this.#subscriber = undefined;
          this.#subscribed = undefined;
        }
      });
  }

  async #unsubscribe(): Promise<void> {
    const subscriber = this.#subscriber;
    this.#subscriber = undefined;
    this.#subscribed = undefined;
    await closeClient(subscriber, this.#timeoutMs);
  }

  /**
   * A client and the promise of its first connection. A client that never connected fails at
   * once (the call gets `history_error`; the next call tries again); one that was connected is
   * reconnected by node-redis after a drop (backing off up to 5 s; pub/sub subscriptions are
   * renewed).
   */
  #connect(): Connecting {
    let connected = false;
    const client: Client = createClient({
      url: this.#url,
      // Fail at once while disconnected instead of queueing: nothing waits without a limit.
      disableOfflineQueue: true,
      socket: {
        connectTimeout: this.#timeoutMs,
        reconnectStrategy: (retries, cause) =>
          connected ? Math.min(100 * 2 ** retries, 5_000) : cause,
      },
    });
    client.on('ready', () => (connected = true));
    // Connection errors also reject the command that met them; unhandled, they would crash.
    client.on('error', () => undefined);
    const ready = client.connect().then(
      () => client,
      (error: unknown) => {
        if (client.isOpen) client.destroy();
        throw error;
      },
    );
    // Handled here so that a failed connection nobody awaits is no unhandled rejection.
    ready.catch(() => undefined);
    return { client, ready };
  }

  async #run<Result>(
    what: string,
    signal: AbortSignal | undefined,
    body: (client: Client) => Promise<Result>,
  ): Promise<Result> {
    throwIfAborted(signal);
    if (this.#closed) {
      throw new SwitchboardError('history_error', `Could not ${what}: the cache is closed.`);
    }
    const connection = (this.#client ??= this.#connect());
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    const limits = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new SwitchboardError('timeout', `Could not ${what} within ${this.#timeoutMs} ms.`),
          ),
        this.#timeoutMs,
      );
      onAbort = () =>
        reject(
          new SwitchboardError('aborted', 'The schema cache operation was aborted.', {
            cause: signal?.reason,
          }),
        );
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([connection.ready.then(body), limits]);
    } catch (error) {
      // A connection that failed to open is dropped, so that the next call tries again.
      void connection.ready.catch(() => {
        if (this.#client === connection) this.#client = undefined;
      });
      if (isSwitchboardError(error)) throw error;
      throw new SwitchboardError('history_error', `Could not ${what} in Redis.`, {
        cause: error,
      });
    } finally {
      clearTimeout(timer);
      if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
    }
  }
}

/**
 * Closes a client whether or not it finished connecting; never rejects. A client still
 * connecting is given up to `timeoutMs` to finish first: node-redis cannot destroy a socket that
 * is still opening (it would open afterwards and keep the process alive).
 */
async function closeClient(connection: Connecting | undefined, timeoutMs: number): Promise<void> {
  if (connection === undefined) return;
  const { client, ready } = connection;
  if (!client.isReady && client.isOpen) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      ready.catch(() => undefined),
      new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs))),
    ]);
    clearTimeout(timer);
  }
  if (client.isReady) await client.close().catch(() => client.destroy());
  else if (client.isOpen) client.destroy();
}

function parseChange(message: string): SchemaCacheChange | undefined {
  try {
    const change = JSON.parse(message) as Partial<SchemaCacheChange> & Record<string, unknown>;
    if (change.kind === 'clear') return { kind: 'clear' };
    if (typeof change.key !== 'string') return undefined;
    if (change.kind === 'delete') return { kind: 'delete', key: change.key };
    if (change.kind === 'set' && typeof change.storedAt === 'number') {
      return { kind: 'set', key: change.key, storedAt: change.storedAt };
    }
  } catch {
    // Not one of ours: ignored.
  }
  return undefined;
}

/** A throwing listener is the app's bug: shown, never allowed to crash the process. */
function reportError(error: unknown): void {
  console.error('A RedisSchemaCache watch listener threw:', error);
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new SwitchboardError('aborted', 'The schema cache operation was aborted.', {
      cause: signal.reason,
    });
  }
}
