import { PgBossHandOffError } from './errors.js';

/**
 * Statements on the PostgresStore's table that run inside the hand-off's transaction, so the dedupe
 * record changes commit or roll back with the job. Same columns and clock as @sms-webhooks/postgres.
 */
const MS = (p: string) => `clock_timestamp() + ${p}::float8 * interval '1 millisecond'`;

/** The table as PostgresStore checks it (`name` or `schema.name`, lowercase): it is written into SQL. */
const TABLE = /^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$/;

export interface DedupeStatements {
  /** $1 key, $2 token, $3 holdMs → a row when `token` holds a live claim, now held for holdMs */
  hold: string;
  /** $1 key, $2 token → a row when `token` held a live claim, now gone */
  drop: string;
  /**
   * $1 key, $2 token, $3 holdMs → a row when the key is free or only claimed (not completed): it is
   * now `token`'s. Only for a replay, under the failed job's row lock: nothing else runs that event.
   */
  takeOver: string;
}

export function dedupeStatements(table: string): DedupeStatements {
  if (!TABLE.test(table)) {
    throw new PgBossHandOffError(
      'ERR_SMS_PGBOSS_OPTIONS',
      `the store's table name ${table} is not one PostgresStore accepts.`,
    );
  }
  const t = table;
  return {
    hold: `UPDATE ${t} SET expires_at = ${MS('$3')}
WHERE key = $1::text AND token = $2::text AND state = 'in-flight' AND expires_at > clock_timestamp()
RETURNING 1 AS ok`,
    drop: `DELETE FROM ${t}
WHERE key = $1::text AND token = $2::text AND state = 'in-flight'
RETURNING 1 AS ok`,
    takeOver: `INSERT INTO ${t} AS e (key, token, state, expires_at)
VALUES ($1::text, $2::text, 'in-flight', ${MS('$3')})
ON CONFLICT (key) DO UPDATE
  SET token = excluded.token, state = 'in-flight', expires_at = excluded.expires_at
  WHERE e.state = 'in-flight' OR e.expires_at <= clock_timestamp()
RETURNING 1 AS ok`,
  };
}
