import type { QueryFunction } from './clients.js';
import { PostgresStore } from './postgres-store.js';

export interface MigrateOptions {
  /** The same client option you give the store: `pool` (pg), `sql` (postgres.js) or `query`. */
  pool?: unknown;
  sql?: unknown;
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
