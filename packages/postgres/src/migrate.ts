import type { QueryFunction } from './clients.js';
import { PostgresStore } from './postgres-store.js';

/** Which database and table {@link migrate} creates the store's tables in. */
export interface MigrateOptions {
  /** The same client option you give the store: `pool` (pg), `sql` (postgres.js) or `query`. */
  pool?: unknown;
  /** A postgres.js `sql`, as the store's `sql` option. */
  sql?: unknown;
  /** A query function, as the store's `query` option. */
  query?: QueryFunction;
  /** Default 'sms_webhook_events'. */
  table?: string;
}

/**
 * Creates the dedupe table and its index if they are missing, under an advisory lock (instances that
 * start together do not race). `new PostgresStore(options).migrate()` does the same.
 */
export async function migrate(options: MigrateOptions): Promise<void> {
  await new PostgresStore({ ...options, statementTimeoutMs: Number.POSITIVE_INFINITY } as never).migrate();
}
