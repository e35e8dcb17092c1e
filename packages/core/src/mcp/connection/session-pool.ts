import type { McpSession } from './mcp-session.ts';

/** Sessions lost before their first use, in a row, after which `acquire` gives up. */
const MAX_LOST_CONNECTS = 3;

/** A session handed to one operation, until {@link SessionLease.release}. */
export interface SessionLease {
  readonly session: McpSession;
  /** Gives the session back (idempotent). It may then be retired if too many are idle. */
  release(): void;
}

/** Options of {@link SessionPool}. */
export interface SessionPoolOptions {
  /** Connects a new session for a header set. Its failure fails every waiter of that connect. */
  open(key: string, headers: Record<string, string>): Promise<McpSession>;
  /**
   * Most idle sessions kept open (across header sets); beyond it the least recently used idle
   * ones are ended. Sessions in use are never ended for this.
   */
  maxIdle: number;
  /** Time bound of the `DELETE` that ends an idle session, in ms. */
  endSessionMs: number;
}

/** One session (connected or connecting) of the pool. */
interface PoolEntry {
  readonly key: string;
  readonly promise: Promise<McpSession>;
  session?: McpSession;
  /** Operations holding a lease on it (from `acquire` until `release`). */
  users: number;
  /** Of those, operations that asked for a stream of their own (`exclusive`). */
  exclusiveUsers: number;
  /** Out of the pool: never handed out again. */
  retired: boolean;
  /** When it was last given back, for least-recently-used eviction (a counter). */
  lastUsed: number;
}

/**
 * The sessions of one `McpConnection`, by header-set key, with leases. Every operation holds a
 * lease on its session from before the session is connected until the operation has settled,
 * so a session is never ended while anyone uses it or waits for it: only idle sessions (no
 * lease) are ended, least recently used first, once more than `maxIdle` are idle. A session
 * that is lost or expired is taken out of the pool at once (`discard`) and closed once its
 * last lease is released.
 *
 * Normally one session serves every operation of a header set. An `exclusive` lease (a tool
 * call that may receive pushed server requests) on a session whose server requests all arrive
 * on one shared stream (legacy HTTP+SSE) gets a session no other exclusive lease holds, opening
 * another one for the same headers when needed: every request the server pushes on it then
 * belongs to that one call.
 */
export class SessionPool {
  readonly #options: SessionPoolOptions;
  readonly #entries = new Map<string, PoolEntry[]>();
  #clock = 0;

  constructor(options: SessionPoolOptions) {
    this.#options = options;
  }

  /**
   * A session for `key`: a pooled one, or a new single-flight connect.
   *
   * @param exclusive Needs a session whose shared stream (legacy SSE) no other exclusive lease
   *   uses. Sessions with a stream per request (Streamable HTTP) are shared regardless.
   * @param sharedStream Whether a session still connecting will have one shared stream (the
   *   transport is known to be legacy SSE); once connected, the session's own kind decides.
   * @throws The connect's error, or why the session was lost when it was lost right after
   *   connecting {@link MAX_LOST_CONNECTS} times in a row.
   */
  async acquire(
    key: string,
    headers: Record<string, string>,
    options: { exclusive: boolean; sharedStream: () => boolean },
  ): Promise<SessionLease> {
    for (let lostConnects = 0; ;) {
      const entry = this.#pick(key, options) ?? this.#create(key, headers);
      const release = this.#take(entry, options.exclusive);
      let session: McpSession;
      try {
        session = await entry.promise;
      } catch (error) {
        release();
        throw error;
      }
      if (session.lost !== undefined || entry.retired) {
        this.discard(session);
        release();
        if (session.lost !== undefined && ++lostConnects >= MAX_LOST_CONNECTS) throw session.lost;
        continue;
      }
      if (options.exclusive && hasSharedStream(session) && entry.exclusiveUsers > 1) {
        // Joined a connect that turned out to be legacy SSE, which another call already holds.
        release();
        continue;
      }
      return { session, release };
    }
  }

  /**
   * A lease on a connected session for `key` when one fits right now, without waiting (the
   * common case once connected: no promise, no microtask hop per operation); `undefined`
   * otherwise, and then {@link acquire} does the rest (connect, lost sessions, retries).
   */
  acquireReady(
    key: string,
    options: { exclusive: boolean; sharedStream: () => boolean },
  ): SessionLease | undefined {
    const entry = this.#pick(key, options);
    const session = entry?.session;
    if (entry === undefined || entry.retired || session === undefined) return;
    if (session.lost !== undefined) return;
    if (options.exclusive && hasSharedStream(session) && entry.exclusiveUsers > 0) return;
    return { session, release: this.#take(entry, options.exclusive) };
  }

  /** Counts one more user of `entry`; returns its release (idempotent). */
  #take(entry: PoolEntry, exclusive: boolean): () => void {
    entry.users++;
    if (exclusive) entry.exclusiveUsers++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      entry.users--;
      if (exclusive) entry.exclusiveUsers--;
      entry.lastUsed = ++this.#clock;
      if (entry.retired) {
        if (entry.users === 0) entry.session?.retire();
      } else {
        this.#evictIdle();
      }
    };
  }

  /**
   * Takes `session` out of the pool (it expired or was lost): no one gets it any more, and it is
   * closed (without a DELETE) once its last lease is released.
   */
  discard(session: McpSession): void {
    const entry = this.#entriesOf(session.key).find((candidate) => candidate.session === session);
    if (entry === undefined) {
      session.retire();
      return;
    }
    this.#remove(entry);
    if (entry.users === 0) session.retire();
  }

  /** Empties the pool; returns every connect promise (to wait for what is still connecting). */
  clear(): Promise<McpSession>[] {
    const promises = [...this.#entries.values()].flat().map((entry) => entry.promise);
    this.#entries.clear();
    return promises;
  }

  /** The entry to use for `key`, if one fits. */
  #pick(
    key: string,
    options: { exclusive: boolean; sharedStream: () => boolean },
  ): PoolEntry | undefined {
    const entries = this.#entriesOf(key);
    if (!options.exclusive) return entries[0];
    return entries.find((entry) => {
      if (entry.exclusiveUsers === 0) return true;
      return entry.session === undefined
        ? !options.sharedStream()
        : !hasSharedStream(entry.session);
    });
  }

  #create(key: string, headers: Record<string, string>): PoolEntry {
    const entry: PoolEntry = {
      key,
      promise: this.#options.open(key, headers),
      users: 0,
      exclusiveUsers: 0,
      retired: false,
      lastUsed: ++this.#clock,
    };
    const entries = this.#entriesOf(key);
    entries.push(entry);
    this.#entries.set(key, entries);
    entry.promise.then(
      (session) => {
        entry.session = session;
      },
      () => this.#remove(entry),
    );
    return entry;
  }

  #remove(entry: PoolEntry): void {
    entry.retired = true;
    const entries = this.#entries.get(entry.key);
    if (entries === undefined) return;
    const index = entries.indexOf(entry);
    if (index !== -1) entries.splice(index, 1);
    if (entries.length === 0) this.#entries.delete(entry.key);
  }

  /** Ends the least recently used idle sessions beyond `maxIdle`. */
  #evictIdle(): void {
    // Runs at every release: count first, without allocating; sort only when over the limit.
    let idleCount = 0;
    for (const entries of this.#entries.values()) {
      for (const entry of entries)
        if (entry.users === 0 && entry.session !== undefined) idleCount++;
    }
    if (idleCount <= this.#options.maxIdle) return;
    const idle = [...this.#entries.values()]
      .flat()
      .filter((entry) => entry.users === 0 && entry.session !== undefined);
    idle.sort((a, b) => a.lastUsed - b.lastUsed);
    for (const entry of idle.slice(0, idle.length - this.#options.maxIdle)) {
      this.#remove(entry);
      entry.session?.retire(this.#options.endSessionMs);
    }
  }

  #entriesOf(key: string): PoolEntry[] {
    return this.#entries.get(key) ?? [];
  }
}

/** Legacy HTTP+SSE: every server request of the session arrives on its one event stream. */
function hasSharedStream(session: McpSession): boolean {
  return session.kind === 'sse';
}
