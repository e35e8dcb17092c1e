import type { PoolClient } from 'pg';

/** The schema version this code writes; add a step to {@link MIGRATIONS} when bumping it. */
export const SCHEMA_VERSION = 3;

/** The quoted, schema-qualified names of the store's tables. */
export interface TableNames {
  /** The schema's name, unquoted. */
  name: string;
  /** The schema's name, quoted. */
  schema: string;
  version: string;
  threads: string;
  runs: string;
  items: string;
}

/** PostgreSQL identifiers this store accepts unquoted-safe: letters, digits, `_`. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * The table names in `schema`, quoted. Refuses anything but a plain identifier, so a schema name
 * can never carry SQL.
 */
export function tableNames(schema: string): TableNames | undefined {
  if (!IDENTIFIER.test(schema)) return undefined;
  const quoted = `"${schema}"`;
  return {
    name: schema,
    schema: quoted,
    version: `${quoted}.switchboard_schema_version`,
    threads: `${quoted}.switchboard_threads`,
    runs: `${quoted}.switchboard_runs`,
    items: `${quoted}.switchboard_items`,
  };
}

/**
 * One step per schema version, applied in order. Times are `double precision` (JavaScript
 * numbers, ms since the epoch, round-trip exactly); rows are plain `json` (kept as written, so a
 * stored record reads back unchanged). `seq` keeps insertion order for ties, as the memory store
 * does.
 */
const MIGRATIONS: readonly ((names: TableNames) => string[])[] = [
  (names) => [
    `CREATE TABLE ${names.threads} (
      thread_id text PRIMARY KEY,
      seq bigserial NOT NULL,
      title text NOT NULL,
      title_source text NOT NULL CHECK (title_source IN ('auto', 'user')),
      created_at double precision NOT NULL,
      updated_at double precision NOT NULL
    )`,
    // listThreads: most recently updated first.
    `CREATE INDEX switchboard_threads_by_update ON ${names.threads} (updated_at DESC, seq)`,
    `CREATE TABLE ${names.runs} (
      thread_id text NOT NULL REFERENCES ${names.threads} ON DELETE CASCADE,
      run_id text NOT NULL,
      seq bigserial NOT NULL,
      created_at double precision NOT NULL,
      version integer NOT NULL,
      item_count integer NOT NULL,
      items_digest text NOT NULL,
      record json NOT NULL,
      PRIMARY KEY (thread_id, run_id)
    )`,
    // loadRuns / loadItems: a thread's runs in createdAt order.
    `CREATE INDEX switchboard_runs_by_thread ON ${names.runs} (thread_id, created_at, seq)`,
    `CREATE TABLE ${names.items} (
      thread_id text NOT NULL,
      run_id text NOT NULL,
      position integer NOT NULL,
      item json NOT NULL,
      PRIMARY KEY (thread_id, run_id, position),
      FOREIGN KEY (thread_id, run_id) REFERENCES ${names.runs} ON DELETE CASCADE
    )`,
  ],
  // Version 2: the thread's selected branch (`selectBranch`: `{ leafRunId, selectedAt }`).
  (names) => [`ALTER TABLE ${names.threads} ADD COLUMN branch_selection json`],
  // Version 3: change numbers for `loadRunChanges`. Each write of a run bumps its thread's
  // `changes` (under the thread row's lock, so numbers commit in order) and stores it on the run
  // row; a thread's life is its `seq` (a thread deleted and created again gets a new one).
  (names) => [
    `ALTER TABLE ${names.threads} ADD COLUMN changes bigint NOT NULL DEFAULT 0`,
    `ALTER TABLE ${names.runs} ADD COLUMN change bigint NOT NULL DEFAULT 0`,
    `CREATE INDEX switchboard_runs_by_change ON ${names.runs} (thread_id, change)`,
  ],
];

/**
 * Creates or upgrades the tables, once per schema however many processes start at once: the
 * steps run in one transaction under a transaction-level advisory lock keyed by the schema name,
 * so a second process waits, then finds the version already current and does nothing.
 */
export async function migrate(client: PoolClient, names: TableNames): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [
      `switchboard-postgres-schema:${names.schema}`,
    ]);
    // Only when missing: CREATE SCHEMA checks the CREATE privilege on the database even with
    // IF NOT EXISTS, which a role that may only use an existing schema lacks.
    const { rowCount } = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [
      names.name,
    ]);
    if (rowCount === 0) await client.query(`CREATE SCHEMA IF NOT EXISTS ${names.schema}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${names.version} (version integer NOT NULL)`);
    const { rows } = await client.query<{ version: number }>(
      `SELECT max(version) AS version FROM ${names.version}`,
    );
    const current = rows[0]?.version ?? 0;
    if (current > SCHEMA_VERSION) {
      throw new Error(
        `The schema is at version ${current}, newer than this @switchboard/postgres writes (${SCHEMA_VERSION}).`,
      );
    }
    for (let version = current + 1; version <= SCHEMA_VERSION; version++) {
      for (const statement of MIGRATIONS[version - 1]?.(names) ?? []) await client.query(statement);
    }
    if (current < SCHEMA_VERSION) {
      await client.query(`DELETE FROM ${names.version}`);
      await client.query(`INSERT INTO ${names.version} (version) VALUES ($1)`, [SCHEMA_VERSION]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
