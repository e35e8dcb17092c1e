import type { Pool } from 'pg';
import { startPostgresServer, type PostgresTestServer } from '@switchboard/fixtures';
import { PostgresHistoryStore } from './postgres-history-store.ts';

/**
 * One throwaway PostgreSQL server for a test file, and stores over fresh schemas of it: each
 * call of {@link freshSchema} names a schema no test used yet, so tests never see each other's
 * rows. {@link dispose} closes every store made here, then stops the server.
 */
export class PostgresTestDatabase {
  readonly #server: PostgresTestServer;
  readonly #stores: PostgresHistoryStore[] = [];
  #schemas = 0;

  private constructor(server: PostgresTestServer) {
    this.#server = server;
  }

  static async start(): Promise<PostgresTestDatabase> {
    return new PostgresTestDatabase(await startPostgresServer());
  }

  get connectionString(): string {
    return this.#server.connectionString;
  }

  freshSchema(): string {
    this.#schemas += 1;
    return `test_${this.#schemas}`;
  }

  /** A store with its own pool (its own connections, as another process has) on `schema`. */
  store(schema: string, pool?: Pool): PostgresHistoryStore {
    const store =
      pool === undefined
        ? new PostgresHistoryStore({ connectionString: this.connectionString, schema })
        : new PostgresHistoryStore({ pool, schema });
    this.#stores.push(store);
    return store;
  }

  /** Closes the stores made so far (their pools); the server keeps running. */
  async closeStores(): Promise<void> {
    await Promise.all(this.#stores.splice(0).map((store) => store.close()));
  }

  async dispose(): Promise<void> {
    await this.closeStores();
    await this.#server.close();
  }
}
