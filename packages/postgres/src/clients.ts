import { createHash } from 'node:crypto';
import { PostgresStoreError } from './errors.js';

/** One row of a statement's result, by column name. */
export type Row = Record<string, unknown>;

/**
 * Runs one parameterised statement (`$1`, `$2` …) and resolves with its rows: an array of row objects,
 * or a result that has them in `rows` (as pg, Kysely and Drizzle over pg answer). An error must reject.
 */
export type QueryFunction = (text: string, values: unknown[]) => Promise<unknown>;

/** What the store needs of a `pg` client or pool: `query({ text, values, name })`. */
export interface PgQueryable {
  /** Runs one statement (named, so pg prepares it once per connection); resolves with its rows. */
  query(config: { text: string; values?: unknown[]; name?: string }): Promise<{ rows: unknown[] }>;
}

/** A `pg.Pool` (or anything shaped like one, such as @neondatabase/serverless's Pool). */
export interface PgPoolLike<Client> extends PgQueryable {
  /** Checks a client out for a transaction; the store releases it. */
  connect(): Promise<Client>;
  /** The callback form, for pools that have only it. */
  connect(
    callback: (err: Error | undefined, client: Client | undefined, done: (release?: unknown) => void) => void,
  ): void;
}

/** What the store needs of a postgres.js `sql` (or of a transaction's `sql`). */
export interface PostgresJsQueryable {
  /** Runs one statement with `$n` parameters; resolves with its rows. */
  unsafe(text: string, values?: never[], options?: { prepare?: boolean }): PromiseLike<unknown>;
  /** The instance's options: `prepare: false` (behind PgBouncer) is followed by the store's statements. */
  readonly options?: { prepare?: boolean };
}

/** A postgres.js `postgres()` instance. */
export interface PostgresJsLike<Tx> extends PostgresJsQueryable {
  /** Runs `cb` in a transaction, committed when it resolves. */
  begin<R>(cb: (sql: Tx) => R | Promise<R>): Promise<unknown>;
  /** The same, with the transaction's options (`'isolation level serializable'`). */
  begin<R>(options: string, cb: (sql: Tx) => R | Promise<R>): Promise<unknown>;
}

/** A pg client checked out of the pool for one transaction. */
export interface PgTransactionClient extends PgQueryable {
  release(destroy?: boolean | Error): void;
  on?(event: 'error', listener: (error: Error) => void): unknown;
  off?(event: 'error', listener: (error: Error) => void): unknown;
}

/** Internal: every statement goes through one of these, whatever the client. */
export type Run = (name: string, text: string, values: unknown[]) => Promise<Row[]>;

export function rowsOf(result: unknown): Row[] | undefined {
  if (Array.isArray(result)) return result as Row[];
  const rows = (result as { rows?: unknown } | null | undefined)?.rows;
  return Array.isArray(rows) ? (rows as Row[]) : undefined;
}

function checkedRows(result: unknown, name: string): Row[] {
  const rows = rowsOf(result);
  if (rows === undefined) {
    throw new PostgresStoreError(
      'ERR_SMS_POSTGRES_REPLY',
      `the ${name} statement answered without rows; a query function must resolve with the rows ` +
        '(an array) or a result holding them in `rows`.',
    );
  }
  return rows;
}

/** A prepared statement's name, unique to its text: two stores with different tables never clash. */
function statementName(name: string, text: string): string {
  return `sms_webhooks_${name}_${createHash('sha1').update(text).digest('hex').slice(0, 12)}`;
}

export function isPgQueryable(value: unknown): value is PgQueryable {
  return typeof value === 'object' && value !== null && typeof (value as PgQueryable).query === 'function';
}

export function isPostgresJs(value: unknown): value is PostgresJsQueryable {
  return (
    typeof value === 'function' && typeof (value as unknown as PostgresJsQueryable).unsafe === 'function'
  );
}

export function fromPg(client: PgQueryable, prepare: boolean): Run {
  return async (name, text, values) =>
    checkedRows(
      await client.query(prepare ? { name: statementName(name, text), text, values } : { text, values }),
      name,
    );
}

export function fromPostgresJs(sql: PostgresJsQueryable, prepare: boolean | undefined): Run {
  // Follow the client's own `prepare` setting (off behind PgBouncer in transaction mode) unless told.
  const options = { prepare: prepare ?? sql.options?.prepare ?? true };
  return async (name, text, values) => checkedRows(await sql.unsafe(text, values as never[], options), name);
}

export function fromQuery(query: QueryFunction): Run {
  return async (name, text, values) => checkedRows(await query(text, values), name);
}

/** A transaction client handed to `completeIn`: pg, postgres.js, or a query function. */
export function runIn(tx: unknown, prepare: boolean | undefined): Run {
  if (isPostgresJs(tx)) return fromPostgresJs(tx, prepare);
  if (typeof tx === 'function') return fromQuery(tx as QueryFunction);
  if (isPgQueryable(tx)) return fromPg(tx, prepare ?? true);
  throw new PostgresStoreError(
    'ERR_SMS_POSTGRES_OPTIONS',
    'completeIn(ctx, tx) needs the transaction: a pg client (with query()), a postgres.js transaction ' +
      'sql, or a function (text, values) => Promise<rows>, e.g. for Prisma ' +
      '(text, values) => tx.$queryRawUnsafe(text, ...values).',
  );
}
