import type { DedupeStore } from '@sms-webhooks/core';
import type {
  ClaimWithOrderResult,
  KeptDelivery,
  ObjectSlot,
  OrderClaim,
  OrderClaimResult,
  StoredEvent,
} from '@sms-webhooks/core/store';
import { type ClaimResult, isKeptDelivery } from '@sms-webhooks/core/store';
import { describeValue, positiveOption, withTimeout } from '@sms-webhooks/internal';
import {
  fromPg,
  fromPostgresJs,
  fromQuery,
  isPgQueryable,
  isPostgresJs,
  type PgPoolLike,
  type PgTransactionClient,
  type PostgresJsLike,
  type QueryFunction,
  type Run,
  runIn,
} from './clients.js';
import { PostgresStoreError } from './errors.js';
import { storedKey } from './event-key.js';
import { type KeptStatements, keptStatements } from './kept-statements.js';
import { type OrderStatements, orderStatements } from './order-statements.js';
import {
  DEFAULT_TABLE,
  migrateStatement,
  objectBusyIndex,
  type Statements,
  statements,
} from './statements.js';
import { quotedTable } from './table-name.js';
import { refuseNonTransactional } from './transaction-client.js';

export const DEFAULT_STATEMENT_TIMEOUT_MS = 2000;
export const DEFAULT_RETAIN_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_SWEEP_INTERVAL_MS = 60_000;
export const DEFAULT_SWEEP_BATCH = 500;

interface CommonOptions {
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

export interface PostgresStorePgOptions<Tx> extends CommonOptions {
  /** A `pg.Pool`. Never ended by the store. `store.transaction` checks a client out of it. */
  pool: PgPoolLike<Tx>;
  sql?: never;
  query?: never;
}

export interface PostgresStorePostgresJsOptions<Tx> extends CommonOptions {
  /** A postgres.js `postgres()` instance. Never ended by the store. */
  sql: PostgresJsLike<Tx>;
  pool?: never;
  query?: never;
}

export interface PostgresStoreQueryOptions extends CommonOptions {
  /**
   * `(text, values) => Promise<rows | { rows }>` for any other client. `store.transaction` is then not
   * available: complete the record inside your own transaction with `store.completeIn(ctx, tx)`.
   */
  query: QueryFunction;
  pool?: never;
  sql?: never;
}

export type PostgresStoreOptions<Tx = unknown> =
  | PostgresStorePgOptions<Tx>
  | PostgresStorePostgresJsOptions<Tx>
  | PostgresStoreQueryOptions;

/** What `transaction` and `completeIn` need of the handler's context: `ctx.claim`. */
export interface ClaimContext {
  claim?: { key: string; token: string } | undefined;
  /** The object slot of the receiver's `order` option: its version advances in the same transaction. */
  order?: OrderClaim | undefined;
}

const STATES = new Set(['in-flight', 'committed', 'completed']);
const CLAIM_RESULTS = new Set<string>(['claimed', 'in-flight', 'completed']);
const ORDER_RESULTS = new Set<string>(['claimed', 'stale', 'in-flight']);
const BOTH_RESULTS = new Set<string>([...CLAIM_RESULTS, 'stale', 'object-in-flight', 'retry']);

function fail(message: string): never {
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
function duration(name: string, ms: number): number {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0) {
    fail(`${name} must be a positive number of ms, got ${String(ms)}.`);
  }
  return Math.ceil(ms);
}

/**
 * A DedupeStore in a PostgreSQL table, shared by every instance that uses the same database, and the
 * one store that can make a handler's effects exactly-once: `transaction` commits the handler's writes
 * and the completed dedupe record together. Each operation is one statement, one round trip.
 * `Tx` is the transaction client your `transaction` callback gets: a pg `PoolClient` or a postgres.js
 * `TransactionSql`, inferred from the client you pass.
 */
export class PostgresStore<Tx = never> implements DedupeStore {
  readonly localKeys = false;
  readonly table: string;
  readonly statementTimeoutMs: number;
  readonly retainMs: number;
  readonly sweepIntervalMs: number;
  readonly sweepBatch: number;
  readonly #sql: Statements;
  readonly #order: OrderStatements;
  readonly #kept: KeptStatements;
  readonly #run: Run;
  readonly #prepare: boolean | undefined;
  readonly #pool: PgPoolLike<Tx> | undefined;
  readonly #postgresJs: PostgresJsLike<Tx> | undefined;
  #nextSweep = 0;
  #sweeping: Promise<unknown> | undefined;
  #orderIndex: Promise<void> | undefined;
  #closed = false;

  constructor(options: PostgresStoreOptions<Tx>) {
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
    this.#sql = statements(table);
    this.#order = orderStatements(table);
    this.#kept = keptStatements(table);
    this.table = table;
    this.statementTimeoutMs = positive(
      'statementTimeoutMs',
      statementTimeoutMs,
      DEFAULT_STATEMENT_TIMEOUT_MS,
      {
        unit: 'ms',
        infinity: true,
      },
    );
    this.retainMs = positive('retainMs', retainMs, DEFAULT_RETAIN_MS, { unit: 'ms' });
    if (typeof sweepIntervalMs !== 'number' || !(sweepIntervalMs >= 0)) {
      fail(
        `\`sweepIntervalMs\` must be 0 (off) or a positive number of ms, got ${describeValue(sweepIntervalMs)}.`,
      );
    }
    this.sweepIntervalMs = sweepIntervalMs;
    this.sweepBatch = positive('sweepBatch', sweepBatch, DEFAULT_SWEEP_BATCH, { integer: true });
    if (prepare !== undefined && typeof prepare !== 'boolean') fail('prepare must be true or false.');
    this.#prepare = prepare;

    if (options.pool !== undefined) {
      const pool = options.pool;
      if (!isPgQueryable(pool) || typeof (pool as { connect?: unknown }).connect !== 'function') {
        fail('pool must be a pg.Pool (with query() and connect()); for postgres.js pass { sql } instead.');
      }
      this.#pool = pool;
      this.#run = fromPg(pool, prepare ?? true);
    } else if (options.sql !== undefined) {
      const sql = options.sql;
      if (!isPostgresJs(sql) || typeof (sql as { begin?: unknown }).begin !== 'function') {
        fail('sql must be a postgres.js instance (postgres(url)); for pg pass { pool } instead.');
      }
      this.#postgresJs = sql;
      this.#run = fromPostgresJs(sql, prepare);
    } else {
      if (typeof options.query !== 'function') {
        fail('query must be a function (text, values) => Promise<rows | { rows }>.');
      }
      this.#run = fromQuery(options.query);
    }
  }

  /** The value of the `key` column for an event id (the id, or `sha256:<hex>` for long or odd ids). */
  keyFor(id: string): string {
    return storedKey(id);
  }

  /** Creates the table and its index if missing; safe to run from several instances at once. */
  async migrate(): Promise<void> {
    await this.#run('migrate', migrateStatement(this.table), []);
  }

  /** Called by the receiver before its first claim: a missing table is an error that says what to run. */
  async init(): Promise<void> {
    const [row] = await this.#bounded(
      this.#run('exists', this.#sql.exists, [quotedTable(this.table)]),
      'the table check',
    );
    if (row?.ok !== true) {
      throw new PostgresStoreError(
        'ERR_SMS_POSTGRES_NO_TABLE',
        `the table ${this.table} does not exist: call await store.migrate() at start-up, or run ` +
          "@sms-webhooks/postgres's sql/migration.sql with your migrations.",
      );
    }
  }

  async claim(key: string, token: string, leaseMs: number): Promise<ClaimResult> {
    const work = this.#run('claim', this.#sql.claim, [storedKey(key), token, duration('leaseMs', leaseMs)]);
    let rows: Awaited<typeof work>;
    try {
      rows = await this.#bounded(work, `claim of ${key.slice(0, 80)}`);
    } catch (error) {
      if ((error as { code?: unknown } | null)?.code === 'ERR_SMS_POSTGRES_TIMEOUT') {
        this.#undoLateClaim(work, key, token);
      }
      throw error;
    }
    const result = rows[0]?.result;
    if (typeof result !== 'string' || !CLAIM_RESULTS.has(result)) throw this.#badReply('claim', rows);
    this.#maybeSweep();
    return result as ClaimResult;
  }

  async complete(key: string, token: string, retainMs: number): Promise<boolean> {
    const values = [storedKey(key), token, duration('retainMs', retainMs)];
    return this.#flag(this.#run('complete', this.#sql.complete, values), 'complete', key);
  }

  async release(key: string, token: string): Promise<boolean> {
    return this.#flag(this.#run('release', this.#sql.release, [storedKey(key), token]), 'release', key);
  }

  async claimOrder(key: string, version: string, token: string, leaseMs: number): Promise<OrderClaimResult> {
    const values = [storedKey(key), version, token, duration('leaseMs', leaseMs)];
    const rows = await this.#bounded(
      this.#ordered(this.#run('claimOrder', this.#order.claimOrder, values)),
      `order claim of ${key.slice(0, 80)}`,
    );
    const result = rows[0]?.result;
    if (typeof result !== 'string' || !ORDER_RESULTS.has(result)) throw this.#badReply('claimOrder', rows);
    return result as OrderClaimResult;
  }

  /**
   * `claim` and `claimOrder` in one statement, one round trip (see DedupeStore.claimWithOrder). Only
   * when a row that ran out is in the way (a crashed instance's), or another claim wrote one since the
   * statement's snapshot, does it take a second statement to clear what ran out and a third to ask again.
   */
  async claimWithOrder(
    key: string,
    token: string,
    leaseMs: number,
    object: ObjectSlot,
  ): Promise<ClaimWithOrderResult> {
    await this.#checkOrderIndex();
    const first = await this.#claimBoth(key, token, leaseMs, object);
    if (first !== 'retry') return first;
    await this.#bounded(
      this.#run('clearExpired', this.#order.clearExpired, [storedKey(key), storedKey(object.key)]),
      `claim of ${key.slice(0, 80)}`,
    );
    const second = await this.#claimBoth(key, token, leaseMs, object);
    // Still unexplained: the service asks again later.
    return second === 'retry' ? 'object-in-flight' : second;
  }

  async #claimBoth(
    key: string,
    token: string,
    leaseMs: number,
    object: ObjectSlot,
  ): Promise<ClaimWithOrderResult | 'retry'> {
    const values = [
      storedKey(key),
      token,
      duration('leaseMs', leaseMs),
      storedKey(object.key),
      object.version,
      duration('retainMs', object.retainMs),
    ];
    const work = this.#ordered(this.#run('claimWithOrder', this.#order.claimWithOrder, values));
    let rows: Awaited<typeof work>;
    try {
      rows = await this.#bounded(work, `claim of ${key.slice(0, 80)}`);
    } catch (error) {
      if ((error as { code?: unknown } | null)?.code === 'ERR_SMS_POSTGRES_TIMEOUT') {
        this.#undoLateClaim(work, key, token);
      }
      throw error;
    }
    const result = rows[0]?.result;
    if (typeof result !== 'string' || !BOTH_RESULTS.has(result)) throw this.#badReply('claimWithOrder', rows);
    this.#maybeSweep();
    return result as ClaimWithOrderResult | 'retry';
  }

  /**
   * Once: the unique index that lets one event at a time hold an object. A table migrated before it
   * existed would let two statuses of one message run at once, so its absence is an error that says
   * what to run.
   */
  #checkOrderIndex(): Promise<void> {
    this.#orderIndex ??= this.#bounded(
      this.#run('exists', this.#sql.exists, [objectBusyIndex(this.table)]),
      'the order index check',
    ).then(
      ([row]) => {
        if (row?.ok === true) return;
        this.#orderIndex = undefined; // checked again next time: a migration may run meanwhile
        throw new PostgresStoreError(
          'ERR_SMS_POSTGRES_NO_TABLE',
          `the table ${this.table} has no object_key column and index (the receiver's \`order\` option needs them): call await store.migrate() at start-up, or run migrationSql() again with your migrations (it adds them).`,
        );
      },
      (error: unknown) => {
        this.#orderIndex = undefined;
        throw error;
      },
    );
    return this.#orderIndex;
  }

  /**
   * `completeOrder` and `complete` in one statement (see DedupeStore.completeWithOrder). An event
   * claimed by claimWithOrder carries its object's version in its own row, so completing that row is
   * the whole step; otherwise (its object was taken by claimOrder, or the claim is no longer this
   * token's) a second statement advances the order table's version and completes the event together.
   */
  async completeWithOrder(
    key: string,
    token: string,
    retainMs: number,
    object: { key: string; version: string },
  ): Promise<boolean> {
    const retain = duration('retainMs', retainMs);
    const what = `completion of ${key.slice(0, 80)}`;
    const carried = [storedKey(key), token, retain, storedKey(object.key), object.version];
    const done = await this.#bounded(
      this.#ordered(this.#run('completeCarried', this.#order.completeCarried, carried)),
      what,
    );
    if (done.length === 1) return true;
    const values = [storedKey(object.key), object.version, token, retain, storedKey(key)];
    const rows = await this.#bounded(
      this.#ordered(this.#run('completeWithOrder', this.#order.completeWithOrder, values)),
      what,
    );
    const row = rows[0] as { ok?: unknown } | undefined;
    if (rows.length !== 1 || typeof row?.ok !== 'boolean') throw this.#badReply('completeWithOrder', rows);
    return row.ok;
  }

  async completeOrder(key: string, version: string, token: string, retainMs: number): Promise<boolean> {
    return this.#completeOrderOn(this.#run, { key, version, token }, duration('retainMs', retainMs));
  }

  async releaseOrder(key: string, token: string): Promise<boolean> {
    const work = this.#ordered(this.#run('releaseOrder', this.#order.releaseOrder, [storedKey(key), token]));
    return this.#flag(work, 'releaseOrder', key);
  }

  async renewOrder(key: string, token: string, leaseMs: number): Promise<boolean> {
    const values = [storedKey(key), token, duration('leaseMs', leaseMs)];
    return this.#flag(
      this.#ordered(this.#run('renewOrder', this.#order.renewOrder, values)),
      'renewOrder',
      key,
    );
  }

  async #completeOrderOn(run: Run, order: OrderClaim, retainMs: number): Promise<boolean> {
    const values = [storedKey(order.key), order.version, order.token, retainMs];
    const rows = await this.#bounded(
      this.#ordered(run('completeOrder', this.#order.completeOrder, values)),
      `order completion of ${order.key.slice(0, 80)}`,
    );
    const row = rows[0] as { ok?: unknown; n?: unknown } | undefined;
    if (rows.length !== 1 || typeof row?.ok !== 'boolean') throw this.#badReply('completeOrder', rows);
    return row.ok;
  }

  /** A missing order table (a database migrated before `order` existed) says what to run. */
  #ordered<T>(work: Promise<T>): Promise<T> {
    return work.catch((error: unknown) => {
      const code = (error as { code?: unknown } | null)?.code;
      // 42P01: no order table; 42703: no object_key column (both added since the first migration).
      if (code !== '42P01' && code !== '42703') throw error;
      throw new PostgresStoreError(
        'ERR_SMS_POSTGRES_NO_TABLE',
        `the order table ${this.table}_order or the object_key column of ${this.table} does not exist (the receiver's \`order\` option needs them): call await store.migrate() at start-up, or run migrationSql() again with your migrations.`,
      );
    });
  }

  async renew(key: string, token: string, leaseMs: number): Promise<boolean> {
    const values = [storedKey(key), token, duration('leaseMs', leaseMs)];
    return this.#flag(this.#run('renew', this.#sql.renew, values), 'renew', key);
  }

  /**
   * What the table holds for the event id `key` (see DedupeStore.inspect). A row committed by a
   * handler's transaction reads as completed: it is done for good.
   */
  async inspect(key: string): Promise<StoredEvent | undefined> {
    const what = `inspect of ${key.slice(0, 80)}`;
    const rows = await this.#bounded(this.#run('inspect', this.#sql.inspect, [storedKey(key)]), what);
    const row = rows[0] as { state?: unknown; expires_ms?: unknown } | undefined;
    if (row === undefined) return undefined;
    const expiresAt = Number(row.expires_ms);
    if (typeof row.state !== 'string' || !STATES.has(row.state) || !Number.isFinite(expiresAt)) {
      throw this.#badReply('inspect', rows);
    }
    return { state: row.state === 'in-flight' ? 'in-flight' : 'completed', expiresAt };
  }

  /** `inspect` of many keys in one statement, answers in the order given (see DedupeStore.inspectMany). */
  async inspectMany(keys: readonly string[]): Promise<Array<StoredEvent | undefined>> {
    if (keys.length === 0) return [];
    const stored = keys.map(storedKey);
    const what = `inspect of ${keys.length} keys`;
    const rows = await this.#bounded(
      this.#run('inspectMany', this.#sql.inspectMany, [JSON.stringify(stored)]),
      what,
    );
    const found = new Map<string, StoredEvent>();
    for (const row of rows as Array<{ key?: unknown; state?: unknown; expires_ms?: unknown }>) {
      const expiresAt = Number(row.expires_ms);
      if (
        typeof row.key !== 'string' ||
        typeof row.state !== 'string' ||
        !STATES.has(row.state) ||
        !Number.isFinite(expiresAt)
      ) {
        throw this.#badReply('inspectMany', rows);
      }
      found.set(row.key, { state: row.state === 'in-flight' ? 'in-flight' : 'completed', expiresAt });
    }
    return stored.map((key) => found.get(key));
  }

  /**
   * Keeps a delivery (the receiver's `keepDeliveries`) in `<table>_kept` for `retainMs`, replacing what
   * was kept for the event (see DedupeStore.keepDelivery): one `INSERT … ON CONFLICT`, one round trip.
   * Rejects with ERR_SMS_POSTGRES_NO_TABLE on a database migrated before that table existed.
   */
  async keepDelivery(key: string, delivery: KeptDelivery, retainMs: number): Promise<void> {
    // JSON.stringify writes NUL and lone surrogates as escapes, so the text column takes any body.
    const values = [storedKey(key), JSON.stringify(delivery), duration('retainMs', retainMs)];
    const rows = await this.#bounded(
      this.#keptTable(this.#run('keepDelivery', this.#kept.keep, values)),
      `keepDelivery of ${key.slice(0, 80)}`,
    );
    if (rows.length !== 1) throw this.#badReply('keepDelivery', rows);
  }

  /** What `keepDelivery` kept for the event id `key`, while its retention lasts (see DedupeStore.keptDelivery). */
  async keptDelivery(key: string): Promise<KeptDelivery | undefined> {
    const rows = await this.#bounded(
      this.#keptTable(this.#run('keptDelivery', this.#kept.kept, [storedKey(key)])),
      `keptDelivery of ${key.slice(0, 80)}`,
    );
    if (rows.length === 0) return undefined;
    const text = (rows[0] as { delivery?: unknown }).delivery;
    let parsed: unknown;
    try {
      parsed = typeof text === 'string' ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (rows.length !== 1 || !isKeptDelivery(parsed)) throw this.#badReply('keptDelivery', rows);
    // Every field present, undefined ones too (JSON drops them): the record reads back as it was given.
    const { eventId, eventType, attempt, receivedAt, tenant, bytes, body } = parsed;
    return { eventId, eventType, attempt, receivedAt, tenant, bytes, body };
  }

  /** A missing kept table (a database migrated before `keepDeliveries` existed) says what to run. */
  #keptTable<T>(work: Promise<T>): Promise<T> {
    return work.catch((error: unknown) => {
      if ((error as { code?: unknown } | null)?.code !== '42P01') throw error;
      throw new PostgresStoreError(
        'ERR_SMS_POSTGRES_NO_TABLE',
        `the table ${this.table}_kept does not exist (the receiver's \`keepDeliveries\` option needs it): call await store.migrate() at start-up, or run migrationSql() again with your migrations (it adds it).`,
        { cause: error },
      );
    });
  }

  /**
   * Runs `fn` in a transaction on the store's own client and, in the same transaction, completes the
   * dedupe record of `ctx.claim`: if it commits, the event is done for good; if anything fails or the
   * process dies before, nothing of it is visible and a redelivery runs it again. When this delivery no
   * longer holds the claim, the transaction rolls back and this rejects with ERR_SMS_POSTGRES_CLAIM_LOST.
   * Without `ctx.claim` (the store was down and `onStoreError: 'process'` let the event through) it is a
   * plain transaction. `fn` gets a pg `PoolClient` or a postgres.js transaction `sql`.
   */
  async transaction<R>(ctx: ClaimContext, fn: (tx: Tx) => R | Promise<R>): Promise<R> {
    if (typeof fn !== 'function') fail('transaction(ctx, fn) needs a function.');
    const claim = ctx?.claim;
    if (this.#postgresJs !== undefined) {
      return (await this.#postgresJs.begin(async (tx) => {
        const result = await fn(tx);
        if (claim) await this.#commit(runIn(tx, this.#prepare), claim, ctx.order);
        return result;
      })) as R;
    }
    if (this.#pool === undefined) {
      fail(
        'transaction() needs the store to hold a pg pool or a postgres.js sql; with { query }, open the ' +
          'transaction yourself and call await store.completeIn(ctx, tx) as its last statement.',
      );
    }
    const client = (await this.#pool.connect()) as unknown as PgTransactionClient;
    let broken: Error | undefined;
    // A checked-out pg client emits 'error' when its connection drops (a database restart); unheard,
    // that crashes the process. The query in progress rejects as well, so noting it is enough.
    const onError = (error: Error) => {
      broken = error;
    };
    client.on?.('error', onError);
    try {
      await client.query({ text: 'BEGIN' });
      const result = await fn(client as unknown as Tx);
      if (claim) await this.#commit(runIn(client, this.#prepare), claim, ctx.order);
      await client.query({ text: 'COMMIT' });
      return result;
    } catch (error) {
      try {
        await client.query({ text: 'ROLLBACK' });
      } catch (e) {
        // The connection is gone or unusable: the pool must not hand it out again.
        broken = e instanceof Error ? e : new Error(String(e));
      }
      throw error;
    } finally {
      client.off?.('error', onError);
      client.release(broken);
    }
  }

  /**
   * Completes the dedupe record of `ctx.claim` inside a transaction you opened: call it as the last
   * statement before the commit. `tx` is a pg client, a postgres.js transaction `sql`, or a function
   * `(text, values) => Promise<rows | { rows }>` that runs on the transaction (Prisma, Kysely, Drizzle:
   * see the README). Rejects with ERR_SMS_POSTGRES_CLAIM_LOST when this delivery no longer holds the
   * claim: let that error roll the transaction back. Does nothing without `ctx.claim`.
   */
  async completeIn(ctx: ClaimContext, tx: unknown): Promise<void> {
    const claim = ctx?.claim;
    refuseNonTransactional(tx);
    const run = runIn(tx, this.#prepare);
    if (claim) await this.#commit(run, claim, ctx?.order);
  }

  /**
   * Removes up to `limit` expired rows of each table (claims whose lease ran out, records past their
   * retention, kept deliveries past theirs) and resolves with how many. The store runs it on its own, off the request path; call it if you turned
   * that off (`sweepIntervalMs: 0`).
   */
  async sweep(limit = this.sweepBatch): Promise<number> {
    const rows = await this.#bounded(this.#run('sweep', this.#sql.sweep, [limit]), 'sweep');
    const n = rows[0]?.n;
    if (typeof n !== 'number') throw this.#badReply('sweep', rows);
    // The order and kept tables exist once migrated by a version that has them; a database without
    // them has nothing there.
    let more = 0;
    for (const [name, text] of [
      ['sweepOrder', this.#order.sweepOrder],
      ['sweepKept', this.#kept.sweepKept],
    ] as const) {
      const swept = await this.#bounded(
        this.#run(name, text, [limit]).catch((error: unknown) => {
          if ((error as { code?: unknown } | null)?.code === '42P01') return [{ n: 0 }];
          throw error;
        }),
        'sweep',
      );
      const m = swept[0]?.n;
      more += typeof m === 'number' ? m : 0;
    }
    return n + more;
  }

  /** Stops the automatic sweep and waits for one in progress. Leaves the client open: it is yours. */
  async shutdown(): Promise<void> {
    this.#closed = true;
    await this.#sweeping;
  }

  /** In the handler's transaction: the object's version first (`order`), then the event's record. */
  async #commit(run: Run, claim: { key: string; token: string }, order?: OrderClaim): Promise<void> {
    if (order !== undefined) await this.#completeOrderOn(run, order, this.retainMs);
    const rows = await run('commit', this.#sql.commit, [storedKey(claim.key), claim.token, this.retainMs]);
    if (rows.length !== 1) {
      throw new PostgresStoreError(
        'ERR_SMS_POSTGRES_CLAIM_LOST',
        `this delivery no longer holds the claim on ${claim.key.slice(0, 80)} (its lease ran out and another ` +
          'delivery took it over, or another transaction of this delivery completed it already); the ' +
          'transaction is rolled back. Keep handlers shorter than leaseMs, and use one transaction per event.',
      );
    }
  }

  /**
   * One batch at a time, at most every sweepIntervalMs, started by a claim but never awaited by it.
   * A full batch means more are waiting: the next claim starts the next batch.
   */
  #maybeSweep(): void {
    if (this.sweepIntervalMs === 0 || this.#closed || this.#sweeping !== undefined) return;
    const now = Date.now();
    if (now < this.#nextSweep) return;
    this.#nextSweep = now + this.sweepIntervalMs;
    this.#sweeping = this.sweep().then(
      (n) => {
        if (n >= this.sweepBatch) this.#nextSweep = 0;
      },
      () => {},
    );
    this.#sweeping.finally(() => {
      this.#sweeping = undefined;
    });
  }

  /**
   * The receiver answered 503 for a claim that timed out, so nobody will process under that token. The
   * statement may still reach the database (a pool hands it a connection once one frees up): when its
   * late answer says `claimed`, give the key back at once rather than have redeliveries answered 409
   * until the lease runs out (the event's, and its object's when `object` was claimed with it).
   */
  #undoLateClaim(work: Promise<{ result?: unknown }[]>, key: string, token: string): void {
    work.then(
      (rows) => {
        // With `order`, the event's row holds its object too: freeing it frees both.
        if (rows[0]?.result === 'claimed') this.release(key, token).catch(() => {});
      },
      () => {},
    );
  }

  async #flag(work: Promise<unknown[]>, what: string, key: string): Promise<boolean> {
    const rows = await this.#bounded(work, `${what} of ${key.slice(0, 80)}`);
    if (rows.length > 1) throw this.#badReply(what, rows);
    return rows.length === 1;
  }

  #badReply(what: string, rows: unknown): PostgresStoreError {
    return new PostgresStoreError(
      'ERR_SMS_POSTGRES_REPLY',
      `unexpected answer to the ${what} statement: ${JSON.stringify(rows)?.slice(0, 100)}.`,
    );
  }

  #bounded<T>(work: Promise<T>, what: string): Promise<T> {
    const ms = this.statementTimeoutMs;
    // The statement may still run later; its late answer is dropped (a late claim is given back, see claim).
    return withTimeout(
      work,
      ms,
      () =>
        new PostgresStoreError(
          'ERR_SMS_POSTGRES_TIMEOUT',
          `${what} got no answer from PostgreSQL within ${ms} ms (statementTimeoutMs).`,
        ),
    );
  }
}
