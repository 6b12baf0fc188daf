import { checkTable } from './table-name.js';

// clock_timestamp(), not now(): inside the handler's transaction now() is when that transaction began.
const MS = (p: string) => `clock_timestamp() + ${p}::float8 * interval '1 millisecond'`;

/** The order table's name: the dedupe table's, with `_order` (both quoted parts). */
export function orderTable(table: string): { quoted: string; index: string } {
  const parts = checkTable(table).split('.');
  const name = `${parts.pop()}_order`;
  const quoted = [...parts, name].map((p) => `"${p}"`).join('.');
  return { quoted, index: `"${name}_exp"` };
}

/**
 * The table of the receiver's `order` option: one row per object, its newest completed `version`
 * (compared bytewise: COLLATE "C"), the `token` holding its lease until `lease_until`, and `expires_at`,
 * after which the row is forgotten (the later of the lease and the retention).
 */
export function orderMigrationSql(table: string): string {
  const { quoted, index } = orderTable(table);
  return `CREATE TABLE IF NOT EXISTS ${quoted} (
  key text PRIMARY KEY,
  version text COLLATE "C",
  token text,
  lease_until timestamptz,
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS ${index} ON ${quoted} (expires_at);
`;
}

export interface OrderStatements {
  /** $1 key, $2 version, $3 token, $4 leaseMs → one row { result: 'claimed' | 'stale' | 'in-flight' } */
  claimOrder: string;
  /** $1 key, $2 version, $3 token, $4 retainMs → one row { ok }: whether `token` held the lease */
  completeOrder: string;
  /** $1 key, $2 token → a row when `token` held the lease (now freed) */
  releaseOrder: string;
  /** $1 key, $2 token, $3 leaseMs → a row when `token` held a live lease (now extended) */
  renewOrder: string;
  /** $1 batch size → one row { n }: expired rows removed */
  sweepOrder: string;
}

/**
 * One statement per step, each atomic on its own (INSERT … ON CONFLICT takes the row's lock). A row past
 * `expires_at` is as good as absent: its version is forgotten when it is taken again.
 */
export function orderStatements(table: string): OrderStatements {
  const o = orderTable(table).quoted;
  const live = 'o.expires_at > clock_timestamp()';
  return {
    claimOrder: `WITH taken AS (
  INSERT INTO ${o} AS o (key, version, token, lease_until, expires_at)
  VALUES ($1::text, NULL, $3::text, ${MS('$4')}, ${MS('$4')})
  ON CONFLICT (key) DO UPDATE
    SET version = CASE WHEN ${live} THEN o.version END,
        token = excluded.token,
        lease_until = excluded.lease_until,
        expires_at = CASE WHEN ${live} THEN GREATEST(o.expires_at, excluded.lease_until) ELSE excluded.lease_until END
    WHERE NOT (${live})
      OR ((o.version IS NULL OR o.version < $2::text COLLATE "C")
        AND (o.token IS NULL OR o.token = $3::text OR o.lease_until <= clock_timestamp()))
  RETURNING 1
)
SELECT CASE
  WHEN EXISTS (SELECT 1 FROM taken) THEN 'claimed'
  WHEN (SELECT o.version FROM ${o} o WHERE o.key = $1::text AND ${live}) >= $2::text COLLATE "C" THEN 'stale'
  ELSE 'in-flight'
END AS result`,
    completeOrder: `WITH prev AS (
  SELECT o.token FROM ${o} o WHERE o.key = $1::text AND ${live}
), up AS (
  INSERT INTO ${o} AS o (key, version, token, lease_until, expires_at)
  VALUES ($1::text, $2::text, NULL, NULL, ${MS('$4')})
  ON CONFLICT (key) DO UPDATE
    SET version = CASE
          WHEN NOT (${live}) OR o.version IS NULL OR o.version < excluded.version THEN excluded.version
          ELSE o.version END,
        token = CASE WHEN o.token = $3::text OR NOT (${live}) THEN NULL ELSE o.token END,
        lease_until = CASE WHEN o.token = $3::text OR NOT (${live}) THEN NULL ELSE o.lease_until END,
        expires_at = GREATEST(o.expires_at, excluded.expires_at)
  RETURNING 1
)
SELECT COALESCE((SELECT token FROM prev) = $3::text, false) AS ok, (SELECT count(*) FROM up)::int AS n`,
    releaseOrder: `UPDATE ${o} o SET token = NULL, lease_until = NULL
WHERE o.key = $1::text AND o.token = $2::text AND ${live}
RETURNING 1 AS ok`,
    renewOrder: `UPDATE ${o} o SET lease_until = ${MS('$3')}, expires_at = GREATEST(o.expires_at, ${MS('$3')})
WHERE o.key = $1::text AND o.token = $2::text AND o.lease_until > clock_timestamp()
RETURNING 1 AS ok`,
    sweepOrder: `WITH gone AS (
  DELETE FROM ${o} WHERE key IN (
    SELECT key FROM ${o} WHERE expires_at <= clock_timestamp()
    ORDER BY expires_at LIMIT $1::int FOR UPDATE SKIP LOCKED
  ) AND expires_at <= clock_timestamp()
  RETURNING 1
)
SELECT count(*)::int AS n FROM gone`,
  };
}
