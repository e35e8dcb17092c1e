import pg, { type Pool, type PoolClient } from 'pg';
import {
  SwitchboardError,
  isSwitchboardError,
  titleFromItems,
  type BranchSelection,
  type CompareAndSetResult,
  type HistoryStore,
  type Item,
  type RunChanges,
  type RunRecord,
  type ThreadCursor,
  type ThreadSummary,
} from '@switchboard/core';
import { itemDigests } from './item-digests.ts';
import { migrate, tableNames, type TableNames } from './postgres-schema.ts';
import { isTransientPostgresFailure } from './transient-failure.ts';

/** Options of {@link PostgresHistoryStore}: a pool of your own, or a connection string. */
export type PostgresHistoryStoreOptions = (
  | {
      /**
       * A `pg` pool the store borrows clients from. Yours: {@link PostgresHistoryStore.close}
       * leaves it open.
       */
      pool: Pool;
      connectionString?: never;
      maxConnections?: never;
    }
  | {
      /**
       * A libpq connection string (`postgres://user:password@host:5432/database`); the store
       * makes its own `pg` pool and ends it on {@link PostgresHistoryStore.close}. Its time
       * limits: 10 s to get a connection (connecting, or waiting for a free one when all
       * `maxConnections` are busy), 10 s to wait for a lock (another process writing the same
       * run), 60 s for a transaction left idle. A pool you pass carries your own limits.
       */
      connectionString: string;
      pool?: never;
      /**
       * The most connections the store's pool opens (`pg`'s `max`); further calls queue for a
       * free one, within the 10 s limit. Size it for the runs one process writes at once, and
       * keep the sum over all processes under the server's `max_connections`. Default 10.
       */
      maxConnections?: number;
    }
) & {
  /**
   * The PostgreSQL schema the tables live in, created when missing. Letters, digits and `_`
   * only. Default `'public'`.
   */
  schema?: string;
};

const DEFAULT_THREAD_TITLE = 'New thread';

interface StoredRunRow {
  version: number;
  item_count: number;
  items_digest: string;
}

/**
 * A {@link HistoryStore} in PostgreSQL (through `pg`), shared by every process that connects to
 * the same database: the store for agents that run on servers (docs/scale.md).
 *
 * Tables (in `schema`, created on first use — idempotent, and safe when many processes start at
 * once): `switchboard_threads` (one row per thread with its selected branch, indexed by last
 * update for {@link listThreads}), `switchboard_runs` (one row per run: everything but its items, with a
 * version) and `switchboard_items` (one row per item). A write to a run takes a transaction-level
 * advisory lock on the run, compares versions and writes in one transaction, so
 * {@link compareAndSetRun} is atomic across processes: of two clients claiming one paused run,
 * exactly one proceeds. A write stores only the items the row does not have yet (a chained digest
 * of the stored items tells an append from a rewrite), so a turn's write costs O(new items),
 * however long the run or the thread.
 *
 * `signal` is checked before a call starts and again before its commit: a write whose signal
 * aborts by then rolls back and writes nothing; a statement already sent finishes.
 *
 * @throws SwitchboardError `history_error` (the PostgreSQL error as `cause`) when the database
 *   fails; `aborted` when `signal` aborts; `invalid_input` from the constructor for a schema name
 *   that is not a plain identifier.
 */
export class PostgresHistoryStore implements HistoryStore {
  readonly #pool: Pool;
  readonly #ownsPool: boolean;
  readonly #names: TableNames;
  #ready: Promise<void> | undefined;

  constructor(options: PostgresHistoryStoreOptions) {
    const names = tableNames(options.schema ?? 'public');
    if (names === undefined) {
      throw new SwitchboardError(
        'invalid_input',
        'The PostgreSQL schema name must be letters, digits and underscores (at most 63).',
      );
    }
    this.#names = names;
    if (options.pool !== undefined) {
      this.#pool = options.pool;
      this.#ownsPool = false;
    } else {
      // Nothing waits without a time limit: connecting, waiting for a run's lock (another
      // process writing it), and a transaction left open by a stuck client.
      this.#pool = new pg.Pool({
        connectionString: options.connectionString,
        max: options.maxConnections ?? 10,
        connectionTimeoutMillis: 10_000,
        lock_timeout: 10_000,
        idle_in_transaction_session_timeout: 60_000,
      });
      // An idle connection the server ended (restart, failover) is dropped from the pool, and the
      // next call connects afresh; unhandled, `pg` would crash the process with it.
      this.#pool.on('error', () => undefined);
      this.#ownsPool = true;
    }
  }

  async loadItems(threadId: string, options: { signal?: AbortSignal } = {}): Promise<Item[]> {
    const { items, runs } = this.#names;
    return await this.#use('load a thread', options.signal, async (client) => {
      const { rows } = await client.query<{ item: Item }>(
        `SELECT i.item FROM ${items} i JOIN ${runs} r USING (thread_id, run_id)
         WHERE i.thread_id = $1 ORDER BY r.created_at, r.seq, i.position`,
        [threadId],
      );
      return rows.map((row) => row.item);
    });
  }

  async loadRuns(threadId: string, options: { signal?: AbortSignal } = {}): Promise<RunRecord[]> {
    return await this.#use('load a thread', options.signal, async (client) => {
      const { rows } = await client.query<{ record: Omit<RunRecord, 'items'>; items: Item[] }>(
        `${this.#selectRuns()} WHERE r.thread_id = $1 ORDER BY r.created_at, r.seq`,
        [threadId],
      );
      return rows.map((row) => ({ ...row.record, items: row.items }));
    });
  }

  /**
   * See {@link HistoryStore.loadRunChanges}: one statement (one snapshot) reads the thread's
   * life (`seq`) and change number, and the rows whose `change` is above the cursor's (index
   * `(thread_id, change)`), so it reads O(changed rows). Cursor: `<thread seq>:<change>`.
   */
  async loadRunChanges(
    threadId: string,
    since: ThreadCursor | undefined,
    options: { signal?: AbortSignal } = {},
  ): Promise<RunChanges> {
    const { threads, runs, items } = this.#names;
    const [generation, after] = parseCursor(since);
    return await this.#use('load a thread', options.signal, async (client) => {
      const { rows } = await client.query<{
        generation: string;
        changes: string;
        record: Omit<RunRecord, 'items'> | null;
        items: Item[] | null;
      }>(
        `SELECT t.seq::text AS generation, t.changes::text AS changes, x.record, x.items
         FROM ${threads} t
         LEFT JOIN LATERAL (
           SELECT r.record, r.created_at, r.seq, COALESCE(added.items, '[]'::json) AS items
           FROM ${runs} r
           LEFT JOIN LATERAL (
             SELECT json_agg(i.item ORDER BY i.position) AS items FROM ${items} i
             WHERE i.thread_id = r.thread_id AND i.run_id = r.run_id
           ) added ON true
           WHERE r.thread_id = t.thread_id
             AND r.change > CASE WHEN t.seq::text = $2 THEN $3::bigint ELSE -1 END
         ) x ON true
         WHERE t.thread_id = $1
         ORDER BY x.created_at, x.seq`,
        [threadId, generation, after],
      );
      const first = rows[0];
      if (first === undefined) return { runs: [], cursor: ':0', complete: true };
      return {
        runs: rows.flatMap((row) =>
          row.record === null ? [] : [{ ...row.record, items: row.items ?? [] }],
        ),
        cursor: `${first.generation}:${first.changes}`,
        complete: first.generation !== generation,
      };
    });
  }

  async saveRun(run: RunRecord, options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.#write(run, undefined, options.signal);
  }

  /** See {@link HistoryStore.compareAndSetRun}: the check and the write are one transaction. */
  async compareAndSetRun(
    run: RunRecord,
    expectedVersion: number,
    options: { signal?: AbortSignal } = {},
  ): Promise<CompareAndSetResult> {
    return await this.#write(run, expectedVersion, options.signal);
  }

  async listThreads(options: { signal?: AbortSignal } = {}): Promise<ThreadSummary[]> {
    return await this.#use('list threads', options.signal, async (client) => {
      const { rows } = await client.query<{
        thread_id: string;
        title: string;
        created_at: number;
        updated_at: number;
      }>(
        `SELECT thread_id, title, created_at, updated_at FROM ${this.#names.threads}
         ORDER BY updated_at DESC, seq`,
      );
      return rows.map((row) => ({
        threadId: row.thread_id,
        title: row.title,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
      }));
    });
  }

  async renameThread(
    threadId: string,
    title: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    await this.#use('rename a thread', options.signal, async (client) => {
      await client.query(
        `UPDATE ${this.#names.threads} SET title = $2, title_source = 'user' WHERE thread_id = $1`,
        [threadId, title],
      );
    });
  }

  /** Stores the thread's selected branch in its thread row. Unknown ids are ignored. */
  async selectBranch(
    threadId: string,
    selection: BranchSelection,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    const { leafRunId, selectedAt } = selection;
    await this.#use('select a branch', options.signal, async (client) => {
      await client.query(
        `UPDATE ${this.#names.threads} SET branch_selection = $2 WHERE thread_id = $1`,
        [threadId, JSON.stringify({ leafRunId, selectedAt })],
      );
    });
  }

  async loadBranchSelection(
    threadId: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<BranchSelection | undefined> {
    return await this.#use('load the selected branch', options.signal, async (client) => {
      const { rows } = await client.query<{ branch_selection: BranchSelection | null }>(
        `SELECT branch_selection FROM ${this.#names.threads} WHERE thread_id = $1`,
        [threadId],
      );
      return rows[0]?.branch_selection ?? undefined;
    });
  }

  async deleteThread(threadId: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.#use('delete a thread', options.signal, async (client) => {
      // Runs and items go with it (ON DELETE CASCADE).
      await client.query(`DELETE FROM ${this.#names.threads} WHERE thread_id = $1`, [threadId]);
    });
  }

  /** Ends the pool when the store made it (`connectionString`); a pool you passed stays open. */
  async close(): Promise<void> {
    if (this.#ownsPool) await this.#pool.end();
  }

  /**
   * Writes `run` in one transaction; with `expectedVersion`, only over that stored version
   * (compare-and-set), else unconditionally (`saveRun`, keeping `run.version` as given).
   */
  async #write(
    run: RunRecord,
    expectedVersion: number | undefined,
    signal: AbortSignal | undefined,
  ): Promise<CompareAndSetResult> {
    const { threads, runs, items } = this.#names;
    const itemsJson = run.items.map((item) => JSON.stringify(item));
    const digests = itemDigests(itemsJson);
    const title = titleFromItems(run.items) ?? DEFAULT_THREAD_TITLE;
    return await this.#use('write a run', signal, async (client) => {
      await client.query('BEGIN');
      try {
        // One writer per run at a time, across processes; the lock ends with the transaction.
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', [
          run.threadId,
          run.runId,
        ]);
        const { rows } = await client.query<StoredRunRow>(
          `SELECT version, item_count, items_digest FROM ${runs}
           WHERE thread_id = $1 AND run_id = $2`,
          [run.threadId, run.runId],
        );
        const stored = rows[0];
        if (expectedVersion !== undefined && (stored?.version ?? 0) !== expectedVersion) {
          const current = stored === undefined ? undefined : await this.#loadRun(client, run);
          await client.query('ROLLBACK');
          return { written: false, current };
        }
        const version = expectedVersion === undefined ? run.version : expectedVersion + 1;
        const { items: _items, ...fields } = run;
        const record = version === undefined ? fields : { ...fields, version };

        // Keep the stored items when they are a prefix of the new ones; else replace them all.
        const kept =
          stored !== undefined &&
          stored.item_count <= itemsJson.length &&
          digests[stored.item_count] === stored.items_digest
            ? stored.item_count
            : 0;
        if (stored !== undefined && kept < stored.item_count) {
          await client.query(
            `DELETE FROM ${items} WHERE thread_id = $1 AND run_id = $2 AND position >= $3`,
            [run.threadId, run.runId, kept],
          );
        }
        // Bumps the thread's change number; its row stays locked until the commit, so writers
        // of one thread commit their change numbers in order (see `loadRunChanges`).
        const thread = await client.query<{ changes: string }>(
          `INSERT INTO ${threads} (thread_id, title, title_source, created_at, updated_at, changes)
           VALUES ($1, $2, 'auto', $3, $4, 1)
           ON CONFLICT (thread_id) DO UPDATE SET
             changes = ${threads}.changes + 1,
             created_at = LEAST(${threads}.created_at, EXCLUDED.created_at),
             updated_at = GREATEST(${threads}.updated_at, EXCLUDED.updated_at),
             title = CASE
               WHEN ${threads}.title_source = 'auto' AND ${threads}.title = $5 THEN EXCLUDED.title
               ELSE ${threads}.title END
           RETURNING changes::text`,
          [run.threadId, title, run.createdAt, run.updatedAt, DEFAULT_THREAD_TITLE],
        );
        await client.query(
          `INSERT INTO ${runs}
             (thread_id, run_id, created_at, version, item_count, items_digest, record, change)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
           ON CONFLICT (thread_id, run_id) DO UPDATE SET
             created_at = EXCLUDED.created_at, version = EXCLUDED.version,
             item_count = EXCLUDED.item_count, items_digest = EXCLUDED.items_digest,
             record = EXCLUDED.record, change = EXCLUDED.change`,
          [
            run.threadId,
            run.runId,
            run.createdAt,
            version ?? 0,
            itemsJson.length,
            digests[itemsJson.length],
            JSON.stringify(record),
            thread.rows[0]?.changes ?? '0',
          ],
        );
        if (kept < itemsJson.length) {
          await client.query(
            `INSERT INTO ${items} (thread_id, run_id, position, item)
             SELECT $1, $2, position, item::json
             FROM unnest($3::integer[], $4::text[]) AS added(position, item)`,
            [
              run.threadId,
              run.runId,
              itemsJson.slice(kept).map((_, index) => kept + index),
              itemsJson.slice(kept),
            ],
          );
        }
        throwIfAborted(signal);
        await client.query('COMMIT');
        return { written: true, version: version ?? 0 };
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  async #loadRun(client: PoolClient, run: RunRecord): Promise<RunRecord | undefined> {
    const { rows } = await client.query<{ record: Omit<RunRecord, 'items'>; items: Item[] }>(
      `${this.#selectRuns()} WHERE r.thread_id = $1 AND r.run_id = $2`,
      [run.threadId, run.runId],
    );
    const row = rows[0];
    return row === undefined ? undefined : { ...row.record, items: row.items };
  }

  /** Run rows with their items (one statement: one consistent snapshot). */
  #selectRuns(): string {
    const { runs, items } = this.#names;
    return `SELECT r.record, COALESCE(added.items, '[]'::json) AS items FROM ${runs} r
      LEFT JOIN LATERAL (
        SELECT json_agg(i.item ORDER BY i.position) AS items FROM ${items} i
        WHERE i.thread_id = r.thread_id AND i.run_id = r.run_id
      ) added ON true`;
  }

  /**
   * Runs `body` on a pooled client after the schema is ready, checking `signal` before it starts;
   * failures other than ours become `history_error`.
   */
  async #use<Result>(
    what: string,
    signal: AbortSignal | undefined,
    body: (client: PoolClient) => Promise<Result>,
  ): Promise<Result> {
    let client: PoolClient | undefined;
    try {
      try {
        client = await this.#pool.connect();
      } catch (error) {
        throw new SwitchboardError('history_error', `Could not ${what} in PostgreSQL.`, {
          cause: error,
          details: { transient: isTransientPostgresFailure(error, 'connect') },
        });
      }
      throwIfAborted(signal);
      await this.#migrate(client);
      throwIfAborted(signal);
      return await body(client);
    } catch (error) {
      if (isSwitchboardError(error)) throw error;
      throw new SwitchboardError('history_error', `Could not ${what} in PostgreSQL.`, {
        cause: error,
        details: { transient: isTransientPostgresFailure(error, 'statement') },
      });
    } finally {
      client?.release();
    }
  }

  /** Creates or upgrades the tables once per store instance (again after a failure). */
  async #migrate(client: PoolClient): Promise<void> {
    this.#ready ??= migrate(client, this.#names).catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    await this.#ready;
  }
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new SwitchboardError('aborted', 'The history operation was aborted.', {
      cause: signal.reason,
    });
  }
}

/** A cursor's thread life and change number; `['', -1]` when absent or not of this store. */
function parseCursor(since: ThreadCursor | undefined): [string, number] {
  const match = since === undefined ? null : /^(\d+):(\d+)$/.exec(since);
  if (match === null) return ['', -1];
  const change = Number(match[2]);
  return Number.isSafeInteger(change) ? [match[1]!, change] : ['', -1];
}
