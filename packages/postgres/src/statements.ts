import { keptMigrationSql, keptTable } from './kept-statements.js';
import { orderMigrationSql, orderTable } from './order-statements.js';
import { checkTable, quotedTable } from './table-name.js';

/** The dedupe table's name when `table` is not given. */
export const DEFAULT_TABLE = 'sms_webhook_events';

/** An index of the table, in the table's schema (an index name takes no schema), quoted. */
function indexName(table: string, suffix = 'expires_at'): string {
  return `"${table.split('.').pop()}_${suffix}"`;
}

/** A relation named `name` (quoted) in the table's schema, schema-qualified for to_regclass. */
function inSchema(table: string, name: string): string {
  const parts = checkTable(table).split('.');
  parts.pop();
  return [...parts.map((p) => `"${p}"`), name].join('.');
}

/** The unique index that lets one event at a time hold an object (`order`), schema-qualified for to_regclass. */
export function objectBusyIndex(table: string): string {
  return inSchema(table, indexName(table, 'object_busy'));
}

/**
 * The table, as a plain script for migration tools (the same text as `sql/migration.sql` for the
 * default name). `state`: 'in-flight' while claimed; 'committed' once a handler's transaction completed
 * it (the receiver's complete() has not confirmed it yet); 'completed'. `expires_at` is the end of the
 * lease or of the retention; a row past it is free to claim and is removed by the store's sweep.
 * `object_key` is set by `claimWithOrder` (`order`): while such a row is in flight it holds its object
 * (one per object, by the unique index); its completion writes the event's `version`, which then counts
 * as the object's. Both indexes hold only those rows, so events without `order` pay nothing for them.
 * Then the order table (`<table>_order`) and the kept deliveries' (`<table>_kept`, `keepDeliveries`).
 */
export function migrationSql(table = DEFAULT_TABLE): string {
  const t = quotedTable(table);
  return `CREATE TABLE IF NOT EXISTS ${t} (
  key text PRIMARY KEY,
  token text NOT NULL,
  state text NOT NULL CHECK (state IN ('in-flight', 'committed', 'completed')),
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS ${indexName(table)} ON ${t} (expires_at);
ALTER TABLE ${t} ADD COLUMN IF NOT EXISTS object_key text, ADD COLUMN IF NOT EXISTS version text COLLATE "C";
CREATE UNIQUE INDEX IF NOT EXISTS ${indexName(table, 'object_busy')} ON ${t} (object_key)
  WHERE state = 'in-flight' AND object_key IS NOT NULL;
CREATE INDEX IF NOT EXISTS ${indexName(table, 'object_version')} ON ${t} (object_key, version)
  WHERE version IS NOT NULL;
${orderMigrationSql(table)}${keptMigrationSql(table)}`;
}

/**
 * What `migrate()` runs: the same script in one DO block, under a transaction-scoped advisory lock, so
 * instances starting together do not race on CREATE … IF NOT EXISTS (which is not safe concurrently).
 * When every table and index is there it returns before the script: CREATE INDEX IF NOT EXISTS and
 * ALTER TABLE lock the table even when they have nothing to do, and an instance starting while others
 * serve deliveries must not stall them, nor deadlock with a statement that reads both tables.
 */
export function migrateStatement(table = DEFAULT_TABLE): string {
  const t = checkTable(table);
  const order = orderTable(t);
  const kept = keptTable(t);
  const present = [
    quotedTable(t),
    inSchema(t, indexName(t)),
    objectBusyIndex(t),
    inSchema(t, indexName(t, 'object_version')),
    order.quoted,
    inSchema(t, order.index),
    kept.quoted,
    inSchema(t, kept.index),
  ]
    .map((name) => `to_regclass('${name}') IS NOT NULL`)
    .join(' AND ');
  return `DO $sms_webhooks_migrate$
BEGIN
PERFORM pg_advisory_xact_lock(hashtext('sms-webhooks:migrate:${t}'));
IF ${present} THEN
  RETURN;
END IF;
${migrationSql(t).trim()}
END
$sms_webhooks_migrate$`;
}

export interface Statements {
  /** $1 key, $2 token, $3 leaseMs → one row { result: 'claimed' | 'in-flight' | 'completed' } */
  claim: string;
  /** $1 key, $2 token, $3 retainMs → a row { ok } when `token` held a live claim (or had committed it) */
  complete: string;
  /** $1 key, $2 token → a row { ok } when `token` held a live claim (now deleted) */
  release: string;
  /** $1 key, $2 token, $3 leaseMs → a row { ok } when `token` held a live claim (or had committed it) */
  renew: string;
  /** $1 key, $2 token, $3 retainMs → a row { ok } when `token` held a live claim (now committed) */
  commit: string;
  /** $1 batch size → one row { n }: expired rows removed */
  sweep: string;
  /** $1 table name, quoted → one row { ok }: whether the table exists */
  exists: string;
  /** $1 key → a row { state, expires_ms } while the key holds a live claim or a retained completion */
  inspect: string;
  /** $1 a JSON array of keys → a row { key, state, expires_ms } for each that holds something live */
  inspectMany: string;
}

// clock_timestamp(), not now(): now() is the start of the transaction, which for the commit statement
// is the start of the handler's own transaction, however long ago that was.
const MS = (p: string) => `clock_timestamp() + ${p}::float8 * interval '1 millisecond'`;

/**
 * One statement per operation, each a single round trip and atomic on its own. The claim's CTE reads
 * the row only when its INSERT … ON CONFLICT took nothing; that read sees the statement's snapshot, so
 * a row another claim inserted a moment ago may be missing from it: that is an in-flight claim.
 */
export function statements(table: string): Statements {
  const t = quotedTable(table);
  return {
    claim: `WITH taken AS (
  INSERT INTO ${t} AS e (key, token, state, expires_at)
  VALUES ($1::text, $2::text, 'in-flight', ${MS('$3')})
  ON CONFLICT (key) DO UPDATE
    SET token = excluded.token, state = 'in-flight', expires_at = excluded.expires_at,
      object_key = NULL, version = NULL
    WHERE e.expires_at <= clock_timestamp()
  RETURNING 1
)
SELECT CASE
  WHEN EXISTS (SELECT 1 FROM taken) THEN 'claimed'
  WHEN (SELECT state FROM ${t} WHERE key = $1::text) IN ('completed', 'committed') THEN 'completed'
  ELSE 'in-flight'
END AS result`,
    complete: `UPDATE ${t} SET state = 'completed', expires_at = ${MS('$3')}
WHERE key = $1::text AND token = $2::text
  AND (state = 'committed' OR (state = 'in-flight' AND expires_at > clock_timestamp()))
RETURNING 1 AS ok`,
    release: `DELETE FROM ${t}
WHERE key = $1::text AND token = $2::text AND state = 'in-flight' AND expires_at > clock_timestamp()
RETURNING 1 AS ok`,
    renew: `UPDATE ${t}
SET expires_at = CASE WHEN state = 'in-flight' THEN ${MS('$3')} ELSE expires_at END
WHERE key = $1::text AND token = $2::text
  AND (state = 'committed' OR (state = 'in-flight' AND expires_at > clock_timestamp()))
RETURNING 1 AS ok`,
    commit: `UPDATE ${t} SET state = 'committed', expires_at = ${MS('$3')}
WHERE key = $1::text AND token = $2::text AND state = 'in-flight' AND expires_at > clock_timestamp()
RETURNING 1 AS ok`,
    sweep: `WITH gone AS (
  DELETE FROM ${t} WHERE key IN (
    SELECT key FROM ${t} WHERE expires_at <= clock_timestamp()
    ORDER BY expires_at LIMIT $1::int FOR UPDATE SKIP LOCKED
  ) AND expires_at <= clock_timestamp()
  RETURNING 1
)
SELECT count(*)::int AS n FROM gone`,
    exists: 'SELECT to_regclass($1::text) IS NOT NULL AS ok',
    inspect: `SELECT state, (extract(epoch FROM expires_at) * 1000)::float8 AS expires_ms FROM ${t}
WHERE key = $1::text AND expires_at > clock_timestamp()`,
    // The keys as one JSON text, typed text so that no client encodes it as JSON again (postgres.js would).
    inspectMany: `SELECT key, state, (extract(epoch FROM expires_at) * 1000)::float8 AS expires_ms FROM ${t}
WHERE key IN (SELECT jsonb_array_elements_text($1::text::jsonb)) AND expires_at > clock_timestamp()`,
  };
}
