export type {
  PgPoolLike,
  PgQueryable,
  PostgresJsLike,
  PostgresJsQueryable,
  QueryFunction,
  Row,
} from './clients.js';
export type { PostgresStoreErrorCode } from './error-codes.js';
export { PostgresStoreError } from './errors.js';
export { MAX_RAW_KEY_BYTES, storedKey } from './event-key.js';
export { type MigrateOptions, migrate } from './migrate.js';
export {
  type ClaimContext,
  DEFAULT_RETAIN_MS,
  DEFAULT_STATEMENT_TIMEOUT_MS,
  DEFAULT_SWEEP_BATCH,
  DEFAULT_SWEEP_INTERVAL_MS,
  PostgresStore,
  type PostgresStoreOptions,
  type PostgresStorePgOptions,
  type PostgresStorePostgresJsOptions,
  type PostgresStoreQueryOptions,
} from './postgres-store.js';
export { DEFAULT_TABLE, migrationSql } from './statements.js';
export type { PostgresStoreCommonOptions } from './store-options.js';
