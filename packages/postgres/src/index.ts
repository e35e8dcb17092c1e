/**
 * `@switchboard/postgres`: a PostgreSQL `HistoryStore` for agents that run on servers
 * (Node only; never part of a browser bundle). See docs/scale.md.
 *
 * @packageDocumentation
 */
export {
  PostgresHistoryStore,
  type PostgresHistoryStoreOptions,
} from './postgres-history-store.ts';
