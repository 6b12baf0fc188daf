import { checkTable, quotedTable } from './table-name.js';

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
  /** $1 object key, $2 version, $3 token, $4 retainMs, $5 event key → one row { ok }: as `complete` */
  completeWithOrder: string;
  /**
   * $1 event key, $2 token, $3 retainMs, $4 object key, $5 version → a row { ok } when the event's row
   * carries the object (then completed with the version)
   */
  completeCarried: string;
  /**
   * $1 event key, $2 token, $3 leaseMs, $4 object key, $5 version, $6 retainMs → one row { result }:
   * 'claimed', 'in-flight', 'completed', 'stale', 'object-in-flight', or 'retry' (see claimWithOrder)
   */
  claimWithOrder: string;
  /** $1 event key, $2 object key → expired rows in the way of claimWithOrder removed (no rows) */
  clearExpired: string;
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
 * An object is held in one of two places: by an event row that `claimWithOrder` wrote (its `object_key`,
 * in flight), or by a lease in the order table (`claimOrder`, the queue workers' and third-party
 * stores' path). Its version is the newer of the order table's and of its completed event rows'. Each
 * statement reads both; each is atomic on its own (INSERT … ON CONFLICT takes the row's lock). A row past
 * `expires_at` is as good as absent.
 */
export function orderStatements(table: string): OrderStatements {
  const sql = fragments(table);
  return { ...claimStatements(sql), ...completionStatements(sql) };
}

/** The SQL the order statements share: the two tables' names and the reads and writes of an object. */
function fragments(table: string) {
  const o = orderTable(table).quoted;
  const t = quotedTable(table);
  const live = 'o.expires_at > clock_timestamp()';
  // Whether an event row holds object `key` now: any (`''`), or one whose token is or is not `token`.
  const heldByEvent = (key: string, which: '' | '=' | '<>' = '', token = '') => `EXISTS (
    SELECT 1 FROM ${t} h WHERE h.object_key = ${key}::text AND h.state = 'in-flight'
      AND h.expires_at > clock_timestamp()${which === '' ? '' : ` AND h.token ${which} ${token}::text`})`;
  // The newest version of object `key` that its completed event rows carry (set by completeCarried).
  const eventVersion = (key: string) => `(SELECT max(d.version) FROM ${t} d
    WHERE d.object_key = ${key}::text AND d.version IS NOT NULL AND d.expires_at > clock_timestamp())`;
  // Takes the object's row for the token unless a live version is as new or another token's lease is
  // live (the parameters' numbers differ between the two statements that use it).
  const takeObject = (version: string, token: string) => `ON CONFLICT (key) DO UPDATE
    SET version = CASE WHEN ${live} THEN o.version END,
        token = excluded.token,
        lease_until = excluded.lease_until,
        expires_at = CASE WHEN ${live} THEN GREATEST(o.expires_at, excluded.lease_until) ELSE excluded.lease_until END
    WHERE NOT (${live})
      OR ((o.version IS NULL OR o.version < ${version}::text COLLATE "C")
        AND (o.token IS NULL OR o.token = ${token}::text OR o.lease_until <= clock_timestamp()))
  RETURNING 1`;
  // The CTEs of completeOrder and completeWithOrder ($1 object key, $2 version, $3 token, $4 retainMs):
  // `prev` reads whether the token held a live lease, `up` records the version unless a live one is newer
  // and frees the lease held by the token (or one that ran out).
  const putVersion = `prev AS (
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
)`;
  return { o, t, live, heldByEvent, eventVersion, takeObject, putVersion };
}

type Fragments = ReturnType<typeof fragments>;

/** Taking an object: with a lease in the order table, or with the event's own row. */
function claimStatements({ o, t, live, heldByEvent, eventVersion, takeObject }: Fragments) {
  return {
    claimOrder: `WITH newer AS (
  SELECT ${eventVersion('$1')} >= $2::text COLLATE "C" AS stale, ${heldByEvent('$1', '<>', '$3')} AS busy
), taken AS (
  INSERT INTO ${o} AS o (key, version, token, lease_until, expires_at)
  SELECT $1::text, NULL, $3::text, ${MS('$4')}, ${MS('$4')} FROM newer
  WHERE NOT COALESCE(newer.stale, false) AND NOT newer.busy
  ${takeObject('$2', '$3')}
)
SELECT CASE
  WHEN EXISTS (SELECT 1 FROM taken) THEN 'claimed'
  WHEN (SELECT o.version FROM ${o} o WHERE o.key = $1::text AND ${live}) >= $2::text COLLATE "C" THEN 'stale'
  WHEN (SELECT stale FROM newer) THEN 'stale'
  ELSE 'in-flight'
END AS result`,
    // The event's row carries its object: in flight it holds it (the unique index admits one such row
    // per object), and once done its version is the object's. So a claim writes one row, as `claim`
    // does. `verdict` reads the object as the statement's snapshot sees it: stale (the event's row is
    // written completed), held in the order table (nothing written) or free. ON CONFLICT DO NOTHING
    // covers both unique indexes: the event known, or its object held by another event. What the
    // snapshot cannot explain (a row that ran out, or one written since the snapshot) is 'retry': the
    // store clears what ran out and asks once more.
    claimWithOrder: `WITH ob AS (
  SELECT o.version, o.token <> $2::text AND o.lease_until > clock_timestamp() AS busy
  FROM ${o} o WHERE o.key = $4::text AND ${live}
), verdict AS (
  SELECT CASE
    WHEN GREATEST((SELECT version FROM ob), ${eventVersion('$4')}) >= $5::text COLLATE "C" THEN 'stale'
    WHEN (SELECT busy FROM ob) THEN 'object-in-flight'
    ELSE 'free'
  END AS v
), ev AS (
  INSERT INTO ${t} AS e (key, token, state, expires_at, object_key, version)
  SELECT $1::text, $2::text,
    CASE WHEN verdict.v = 'stale' THEN 'completed' ELSE 'in-flight' END,
    CASE WHEN verdict.v = 'stale' THEN ${MS('$6')} ELSE ${MS('$3')} END,
    CASE WHEN verdict.v = 'stale' THEN NULL ELSE $4::text END, NULL
  FROM verdict WHERE verdict.v <> 'object-in-flight'
  ON CONFLICT DO NOTHING
  RETURNING e.state
)
SELECT COALESCE(
  (SELECT CASE WHEN ev.state = 'in-flight' THEN 'claimed' ELSE 'stale' END FROM ev),
  (SELECT CASE WHEN k.state = 'in-flight' THEN 'in-flight' ELSE 'completed' END
    FROM ${t} k WHERE k.key = $1::text AND k.expires_at > clock_timestamp()),
  CASE WHEN (SELECT v FROM verdict) = 'object-in-flight' OR ${heldByEvent('$4')} THEN 'object-in-flight'
    ELSE 'retry' END
) AS result`,
    clearExpired: `DELETE FROM ${t}
WHERE expires_at <= clock_timestamp()
  AND (key = $1::text OR (object_key = $2::text AND state = 'in-flight'))`,
  };
}

/** Completing, freeing, renewing and sweeping what the claims took. */
function completionStatements({ o, t, live, heldByEvent, putVersion }: Fragments) {
  return {
    // The event's own row carries its object's version (claimWithOrder): completing it is all it takes.
    completeCarried: `UPDATE ${t} SET state = 'completed', expires_at = ${MS('$3')}, version = $5::text
WHERE key = $1::text AND token = $2::text AND object_key = $4::text
  AND (state = 'committed' OR (state = 'in-flight' AND expires_at > clock_timestamp()))
RETURNING 1 AS ok`,
    // completeOrder's CTEs and then complete's UPDATE: one statement, one commit.
    completeWithOrder: `WITH ${putVersion}, done AS (
  UPDATE ${t} SET state = 'completed', expires_at = ${MS('$4')}
  WHERE key = $5::text AND token = $3::text
    AND (state = 'committed' OR (state = 'in-flight' AND expires_at > clock_timestamp()))
  RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM done) AS ok, (SELECT count(*) FROM up)::int AS n`,
    completeOrder: `WITH ${putVersion}
SELECT COALESCE((SELECT token FROM prev) = $3::text, false) OR ${heldByEvent('$1', '=', '$3')} AS ok,
  (SELECT count(*) FROM up)::int AS n`,
    releaseOrder: `UPDATE ${o} o SET token = NULL, lease_until = NULL
WHERE o.key = $1::text AND o.token = $2::text AND ${live}
RETURNING 1 AS ok`,
    // An event row holding the object is renewed with the event (`renew`): the answer only says so.
    renewOrder: `WITH up AS (
  UPDATE ${o} o SET lease_until = ${MS('$3')}, expires_at = GREATEST(o.expires_at, ${MS('$3')})
  WHERE o.key = $1::text AND o.token = $2::text AND o.lease_until > clock_timestamp()
  RETURNING 1
)
SELECT 1 AS ok WHERE EXISTS (SELECT 1 FROM up) OR ${heldByEvent('$1', '=', '$2')}`,
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
