import { describeValue, positiveOption } from '@sms-webhooks/internal';
import {
  fromPg,
  fromPostgresJs,
  fromQuery,
  isPgQueryable,
  isPostgresJs,
  type PgPoolLike,
  type PostgresJsLike,
  type QueryFunction,
  type Run,
} from './clients.js';
import { PostgresStoreError } from './errors.js';
import { DEFAULT_TABLE } from './statements.js';
import { checkTable } from './table-name.js';

/** How long one statement may take, in ms, when `statementTimeoutMs` is not given. */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 2000;
/** The `retainMs` option's default: 24 hours. */
export const DEFAULT_RETAIN_MS = 24 * 60 * 60 * 1000;
/** The `sweepIntervalMs` option's default, in ms. */
export const DEFAULT_SWEEP_INTERVAL_MS = 60_000;
/** The `sweepBatch` option's default: expired rows removed per sweep. */
export const DEFAULT_SWEEP_BATCH = 500;

/** The options every {@link PostgresStoreOptions} form shares. */
export interface PostgresStoreCommonOptions {
  /** The dedupe table, `name` or `schema.name`. Default 'sms_webhook_events'. */
  table?: string;
  /**
   * Longest wait for one store statement, in ms. Default 2000. A slower or unreachable database makes
   * the operation reject, so the receiver answers 503 instead of hanging. `Infinity` turns it off.
   */
  statementTimeoutMs?: number;
  /**
   * How long a record completed inside a handler's transaction is kept, in ms, should the process die
   * before the receiver confirms it (the receiver's own `retainMs` applies once it does). Default 24 h.
   */
  retainMs?: number;
  /** Expired rows are removed at most this often, in ms, by the instance's next claim. 0 turns it off. Default 60 s. */
  sweepIntervalMs?: number;
  /** Rows removed by one sweep statement at most. Default 500. */
  sweepBatch?: number;
  /**
   * Use named prepared statements (pg) or prepared queries (postgres.js). Default: on for pg; for
   * postgres.js, what the client says (`postgres({ prepare })`). Turn off behind PgBouncer < 1.21 in
   * transaction mode.
   */
  prepare?: boolean;
}

/** A {@link PostgresStore} on a `pg` pool. */
export interface PostgresStorePgOptions<Tx> extends PostgresStoreCommonOptions {
  /** A `pg.Pool`. Never ended by the store. `store.transaction` checks a client out of it. */
  pool: PgPoolLike<Tx>;
  /** Not with `pool`. */
  sql?: never;
  /** Not with `pool`. */
  query?: never;
}

/** A {@link PostgresStore} on a postgres.js `sql`. */
export interface PostgresStorePostgresJsOptions<Tx> extends PostgresStoreCommonOptions {
  /** A postgres.js `postgres()` instance. Never ended by the store. */
  sql: PostgresJsLike<Tx>;
  /** Not with `sql`. */
  pool?: never;
  /** Not with `sql`. */
  query?: never;
}

/** A {@link PostgresStore} on a query function, for any other client (Kysely, Drizzle, a Neon driver). */
export interface PostgresStoreQueryOptions extends PostgresStoreCommonOptions {
  /**
   * `(text, values) => Promise<rows | { rows }>` for any other client. `store.transaction` is then not
   * available: complete the record inside your own transaction with `store.completeIn(ctx, tx)`.
   */
  query: QueryFunction;
  /** Not with `query`. */
  pool?: never;
  /** Not with `query`. */
  sql?: never;
}

/** `new PostgresStore(options)`: a `pool` (pg), an `sql` (postgres.js) or a `query` function, and the shared options. */
export type PostgresStoreOptions<Tx = unknown> =
  | PostgresStorePgOptions<Tx>
  | PostgresStorePostgresJsOptions<Tx>
  | PostgresStoreQueryOptions;

/** The options, checked, with their defaults. */
export interface StoreSettings {
  table: string;
  statementTimeoutMs: number;
  retainMs: number;
  sweepIntervalMs: number;
  sweepBatch: number;
  prepare: boolean | undefined;
}

/** How the store reaches the database: statements through `run`, transactions on the pool or sql. */
export interface StoreConnection<Tx> {
  run: Run;
  pool?: PgPoolLike<Tx> | undefined;
  postgresJs?: PostgresJsLike<Tx> | undefined;
}

export function fail(message: string): never {
  throw new PostgresStoreError('ERR_SMS_POSTGRES_OPTIONS', message);
}

const OWNER = '@sms-webhooks/postgres';

/** core's positiveOption (Infinity only where it says so), thrown as a PostgresStoreError like every option mistake here. */
function positive(
  name: string,
  value: unknown,
  fallback: number,
  rules: { integer?: boolean; unit?: string; infinity?: boolean },
): number {
  if (rules.infinity && value === Number.POSITIVE_INFINITY) return value;
  try {
    return positiveOption(name, value, fallback, {
      owner: OWNER,
      integer: rules.integer,
      unit: rules.infinity ? `${rules.unit} (or Infinity)` : rules.unit,
      code: 'ERR_SMS_POSTGRES_OPTIONS',
    });
  } catch (error) {
    fail((error as Error).message.slice(OWNER.length + 2));
  }
}

/** Durations go to SQL as whole milliseconds, rounded up so a lease is never shorter than asked. */
export function duration(name: string, ms: number): number {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0) {
    fail(`${name} must be a positive number of ms, got ${String(ms)}.`);
  }
  return Math.ceil(ms);
}

/** Checks every option but the client, in the order the constructor always has. */
export function storeSettings<Tx>(options: PostgresStoreOptions<Tx>): StoreSettings {
  if (typeof options !== 'object' || options === null) {
    fail('pass options: new PostgresStore({ pool }) (pg), ({ sql }) (postgres.js) or ({ query }).');
  }
  const given = ['pool', 'sql', 'query'].filter(
    (k) => (options as unknown as Record<string, unknown>)[k] !== undefined,
  );
  if (given.length !== 1) {
    fail(
      given.length === 0
        ? 'pass a client: new PostgresStore({ pool }) with a pg.Pool, ({ sql }) with postgres.js, or ({ query }).'
        : `pass one client, not ${given.join(' and ')}.`,
    );
  }
  const {
    table = DEFAULT_TABLE,
    statementTimeoutMs = DEFAULT_STATEMENT_TIMEOUT_MS,
    retainMs = DEFAULT_RETAIN_MS,
    sweepIntervalMs = DEFAULT_SWEEP_INTERVAL_MS,
    sweepBatch = DEFAULT_SWEEP_BATCH,
    prepare,
  } = options;
  checkTable(table); // first, as the statements built from it always were
  const timeout = positive('statementTimeoutMs', statementTimeoutMs, DEFAULT_STATEMENT_TIMEOUT_MS, {
    unit: 'ms',
    infinity: true,
  });
  const retain = positive('retainMs', retainMs, DEFAULT_RETAIN_MS, { unit: 'ms' });
  if (typeof sweepIntervalMs !== 'number' || !(sweepIntervalMs >= 0)) {
    fail(
      `\`sweepIntervalMs\` must be 0 (off) or a positive number of ms, got ${describeValue(sweepIntervalMs)}.`,
    );
  }
  const batch = positive('sweepBatch', sweepBatch, DEFAULT_SWEEP_BATCH, { integer: true });
  if (prepare !== undefined && typeof prepare !== 'boolean') fail('prepare must be true or false.');
  return {
    table,
    statementTimeoutMs: timeout,
    retainMs: retain,
    sweepIntervalMs,
    sweepBatch: batch,
    prepare,
  };
}

/** The one client the options name, checked to be the kind they say. */
export function storeConnection<Tx>(
  options: PostgresStoreOptions<Tx>,
  prepare: boolean | undefined,
): StoreConnection<Tx> {
  if (options.pool !== undefined) {
    const pool = options.pool;
    if (!isPgQueryable(pool) || typeof (pool as { connect?: unknown }).connect !== 'function') {
      fail('pool must be a pg.Pool (with query() and connect()); for postgres.js pass { sql } instead.');
    }
    return { run: fromPg(pool, prepare ?? true), pool };
  }
  if (options.sql !== undefined) {
    const sql = options.sql;
    if (!isPostgresJs(sql) || typeof (sql as { begin?: unknown }).begin !== 'function') {
      fail('sql must be a postgres.js instance (postgres(url)); for pg pass { pool } instead.');
    }
    return { run: fromPostgresJs(sql, prepare), postgresJs: sql };
  }
  if (typeof options.query !== 'function') {
    fail('query must be a function (text, values) => Promise<rows | { rows }>.');
  }
  return { run: fromQuery(options.query) };
}
