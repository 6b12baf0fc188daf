import { PgBossHandOffError } from './errors.js';

/** What pg-boss runs its statements through (`{ db }` on send): `executeSql(text, values)` → `{ rows }`. */
export interface SqlExecutor {
  /** Runs one statement with `$n` parameters in the transaction; resolves with its rows. */
  executeSql(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

interface PgClient {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

interface PostgresJsTransaction {
  unsafe(text: string, values?: unknown[]): PromiseLike<Record<string, unknown>[]>;
}

/**
 * The transaction `PostgresStore.transaction` hands out (a pg `PoolClient` or a postgres.js transaction
 * `sql`) as the `db` pg-boss sends a job through, so the job's insert is part of that transaction.
 * postgres.js does not turn objects into JSON parameters the way pg does, so they are sent as text.
 */
export function transactionDb(tx: unknown): SqlExecutor {
  if (typeof tx === 'function' && typeof (tx as unknown as PostgresJsTransaction).unsafe === 'function') {
    const sql = tx as unknown as PostgresJsTransaction;
    return {
      async executeSql(text, values = []) {
        const params = values.map((v) =>
          v !== null && typeof v === 'object' && !(v instanceof Date) && !Array.isArray(v)
            ? JSON.stringify(v)
            : v,
        );
        return { rows: [...(await sql.unsafe(text, params))] };
      },
    };
  }
  if (typeof (tx as PgClient | null)?.query === 'function') {
    const client = tx as PgClient;
    return { executeSql: (text, values = []) => client.query(text, values) };
  }
  throw new PgBossHandOffError(
    'ERR_SMS_PGBOSS_OPTIONS',
    "the store handed out a transaction that is neither a pg client nor a postgres.js sql: pass the receiver's PostgresStore from @sms-webhooks/postgres, built with { pool } (pg) or { sql } (postgres.js).",
  );
}
