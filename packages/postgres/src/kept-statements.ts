import { checkTable } from './table-name.js';

const MS = (p: string) => `clock_timestamp() + ${p}::float8 * interval '1 millisecond'`;

/** The kept deliveries' table: the dedupe table's name with `_kept`, in its schema (both quoted parts). */
export function keptTable(table: string): { quoted: string; index: string } {
  const parts = checkTable(table).split('.');
  const name = `${parts.pop()}_kept`;
  const quoted = [...parts, name].map((p) => `"${p}"`).join('.');
  return { quoted, index: `"${name}_exp"` };
}

/**
 * The table of the receiver's `keepDeliveries`: one row per event, its `delivery` as JSON text (the
 * record and the raw body), forgotten after `expires_at`. Text, not jsonb: jsonb refuses `\u0000` in a
 * string, which a body may hold, and text keeps what the receiver wrote as it was, unparsed.
 */
export function keptMigrationSql(table: string): string {
  const { quoted, index } = keptTable(table);
  return `CREATE TABLE IF NOT EXISTS ${quoted} (
  key text PRIMARY KEY,
  delivery text NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS ${index} ON ${quoted} (expires_at);
`;
}

export interface KeptStatements {
  /** $1 key, $2 the delivery as JSON text, $3 retainMs → one row { ok }: kept, replacing what was */
  keep: string;
  /** $1 key → a row { delivery } while what was kept under it lasts */
  kept: string;
  /** $1 batch size → one row { n }: expired rows removed */
  sweepKept: string;
}

// clock_timestamp(), as everywhere: the database's clock decides, whatever the instances' say.
export function keptStatements(table: string): KeptStatements {
  const k = keptTable(table).quoted;
  return {
    keep: `INSERT INTO ${k} AS k (key, delivery, expires_at) VALUES ($1::text, $2::text, ${MS('$3')})
ON CONFLICT (key) DO UPDATE SET delivery = excluded.delivery, expires_at = excluded.expires_at
RETURNING 1 AS ok`,
    kept: `SELECT delivery FROM ${k} WHERE key = $1::text AND expires_at > clock_timestamp()`,
    sweepKept: `WITH gone AS (
  DELETE FROM ${k} WHERE key IN (
    SELECT key FROM ${k} WHERE expires_at <= clock_timestamp()
    ORDER BY expires_at LIMIT $1::int FOR UPDATE SKIP LOCKED
  ) AND expires_at <= clock_timestamp()
  RETURNING 1
)
SELECT count(*)::int AS n FROM gone`,
  };
}
