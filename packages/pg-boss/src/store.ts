import { PgBossHandOffError } from './errors.js';

/**
 * What the package needs of a `PostgresStore` (@sms-webhooks/postgres) built with `{ pool }` (pg) or
 * `{ sql }` (postgres.js): a transaction on its client, and where and how it keeps the dedupe records.
 */
export interface HandOffStore {
  readonly table: string;
  keyFor(id: string): string;
  transaction<R>(ctx: { claim?: undefined }, fn: (tx: unknown) => R | Promise<R>): Promise<R>;
}

export function checkStore(store: unknown, where: string): HandOffStore {
  const s = store as Partial<HandOffStore> | null | undefined;
  if (typeof s?.transaction !== 'function' || typeof s.keyFor !== 'function' || typeof s.table !== 'string') {
    throw new PgBossHandOffError(
      'ERR_SMS_PGBOSS_OPTIONS',
      `${where} needs \`store\`: the receiver's PostgresStore, built with { pool } (pg) or { sql } (postgres.js), on the database pg-boss uses.`,
    );
  }
  return s as HandOffStore;
}
