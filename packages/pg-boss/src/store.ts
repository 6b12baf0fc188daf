import { PgBossHandOffError } from './errors.js';

/**
 * What the package needs of a `PostgresStore` (@sms-webhooks/postgres) built with `{ pool }` (pg) or
 * `{ sql }` (postgres.js): a transaction on its client, and where and how it keeps the dedupe records.
 */
export interface HandOffStore {
  /** The store's table (schema-qualified when given so), where the claims live. */
  readonly table: string;
  /** The store key of an event id, as the receiver claims it. */
  keyFor(id: string): string;
  /**
   * Runs `fn` in a transaction and, in it, completes `ctx.claim` (and advances `ctx.order`'s version):
   * the hand-off passes no claim, the worker passes the job's, to complete it together with the job.
   */
  transaction<R>(
    ctx: { claim?: { key: string; token: string }; order?: { key: string; version: string; token: string } },
    fn: (tx: unknown) => R | Promise<R>,
  ): Promise<R>;
}

/** Whether `store` can complete a job in its own transaction (a PostgresStore with a pool or a sql). */
export function isHandOffStore(store: unknown): store is HandOffStore {
  const s = store as Partial<HandOffStore> | null | undefined;
  return (
    typeof s?.transaction === 'function' && typeof s.keyFor === 'function' && typeof s.table === 'string'
  );
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
