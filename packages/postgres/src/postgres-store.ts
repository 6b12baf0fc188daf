import type { DedupeStore } from '@sms-webhooks/core';
import type {
  ClaimResult,
  ClaimWithOrderResult,
  KeptDelivery,
  ObjectSlot,
  OrderClaimResult,
  StoredEvent,
} from '@sms-webhooks/core/store';
import * as claims from './claims.js';
import { PostgresStoreError } from './errors.js';
import { storedKey } from './event-key.js';
import { inspect, inspectMany } from './inspect.js';
import { keepDelivery, keptDelivery } from './kept-deliveries.js';
import { keptStatements } from './kept-statements.js';
import * as orders from './order-claims.js';
import { orderStatements } from './order-statements.js';
import { migrateStatement, statements } from './statements.js';
import { bounded, type StoreContext } from './store-context.js';
import { type PostgresStoreOptions, storeConnection, storeSettings } from './store-options.js';
import { Sweeper, sweep } from './sweep.js';
import { quotedTable } from './table-name.js';
import { type ClaimContext, completeIn, transaction } from './transaction.js';

export {
  DEFAULT_RETAIN_MS,
  DEFAULT_STATEMENT_TIMEOUT_MS,
  DEFAULT_SWEEP_BATCH,
  DEFAULT_SWEEP_INTERVAL_MS,
  type PostgresStoreOptions,
  type PostgresStorePgOptions,
  type PostgresStorePostgresJsOptions,
  type PostgresStoreQueryOptions,
} from './store-options.js';
export type { ClaimContext } from './transaction.js';

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
  readonly #ctx: StoreContext<Tx>;
  readonly #orderIndex = new orders.OrderIndexCheck();
  readonly #sweeper: Sweeper;

  constructor(options: PostgresStoreOptions<Tx>) {
    const settings = storeSettings(options);
    const { table, prepare } = settings;
    const { run, pool, postgresJs } = storeConnection(options, prepare);
    this.table = table;
    this.statementTimeoutMs = settings.statementTimeoutMs;
    this.retainMs = settings.retainMs;
    this.sweepIntervalMs = settings.sweepIntervalMs;
    this.sweepBatch = settings.sweepBatch;
    this.#sweeper = new Sweeper(this.sweepIntervalMs, this.sweepBatch, () => this.sweep());
    this.#ctx = {
      table,
      statementTimeoutMs: this.statementTimeoutMs,
      retainMs: this.retainMs,
      prepare,
      run,
      pool,
      postgresJs,
      sql: statements(table),
      order: orderStatements(table),
      kept: keptStatements(table),
      claimed: () => this.#sweeper.maybeSweep(),
    };
  }

  /** The value of the `key` column for an event id (the id, or `sha256:<hex>` for long or odd ids). */
  keyFor(id: string): string {
    return storedKey(id);
  }

  /** Creates the table and its index if missing; safe to run from several instances at once. */
  async migrate(): Promise<void> {
    await this.#ctx.run('migrate', migrateStatement(this.table), []);
  }

  /** Called by the receiver before its first claim: a missing table is an error that says what to run. */
  async init(): Promise<void> {
    const { run, sql } = this.#ctx;
    const [row] = await bounded(
      this.#ctx,
      run('exists', sql.exists, [quotedTable(this.table)]),
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
    return claims.claim(this.#ctx, key, token, leaseMs);
  }

  async complete(key: string, token: string, retainMs: number): Promise<boolean> {
    return claims.complete(this.#ctx, key, token, retainMs);
  }

  async release(key: string, token: string): Promise<boolean> {
    return claims.release(this.#ctx, key, token);
  }

  async claimOrder(key: string, version: string, token: string, leaseMs: number): Promise<OrderClaimResult> {
    return orders.claimOrder(this.#ctx, key, version, token, leaseMs);
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
    return orders.claimWithOrder(this.#ctx, this.#orderIndex, key, token, leaseMs, object);
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
    return orders.completeWithOrder(this.#ctx, key, token, retainMs, object);
  }

  async completeOrder(key: string, version: string, token: string, retainMs: number): Promise<boolean> {
    return orders.completeOrder(this.#ctx, key, version, token, retainMs);
  }

  async releaseOrder(key: string, token: string): Promise<boolean> {
    return orders.releaseOrder(this.#ctx, key, token);
  }

  async renewOrder(key: string, token: string, leaseMs: number): Promise<boolean> {
    return orders.renewOrder(this.#ctx, key, token, leaseMs);
  }

  async renew(key: string, token: string, leaseMs: number): Promise<boolean> {
    return claims.renew(this.#ctx, key, token, leaseMs);
  }

  /**
   * What the table holds for the event id `key` (see DedupeStore.inspect). A row committed by a
   * handler's transaction reads as completed: it is done for good.
   */
  async inspect(key: string): Promise<StoredEvent | undefined> {
    return inspect(this.#ctx, key);
  }

  /** `inspect` of many keys in one statement, answers in the order given (see DedupeStore.inspectMany). */
  async inspectMany(keys: readonly string[]): Promise<Array<StoredEvent | undefined>> {
    return inspectMany(this.#ctx, keys);
  }

  /**
   * Keeps a delivery (the receiver's `keepDeliveries`) in `<table>_kept` for `retainMs`, replacing what
   * was kept for the event (see DedupeStore.keepDelivery): one `INSERT … ON CONFLICT`, one round trip.
   * Rejects with ERR_SMS_POSTGRES_NO_TABLE on a database migrated before that table existed.
   */
  async keepDelivery(key: string, delivery: KeptDelivery, retainMs: number): Promise<void> {
    return keepDelivery(this.#ctx, key, delivery, retainMs);
  }

  /** What `keepDelivery` kept for the event id `key`, while its retention lasts (see DedupeStore.keptDelivery). */
  async keptDelivery(key: string): Promise<KeptDelivery | undefined> {
    return keptDelivery(this.#ctx, key);
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
    return transaction(this.#ctx, ctx, fn);
  }

  /**
   * Completes the dedupe record of `ctx.claim` inside a transaction you opened: call it as the last
   * statement before the commit. `tx` is a pg client, a postgres.js transaction `sql`, or a function
   * `(text, values) => Promise<rows | { rows }>` that runs on the transaction (Prisma, Kysely, Drizzle:
   * see the README). Rejects with ERR_SMS_POSTGRES_CLAIM_LOST when this delivery no longer holds the
   * claim: let that error roll the transaction back. Does nothing without `ctx.claim`.
   */
  async completeIn(ctx: ClaimContext, tx: unknown): Promise<void> {
    return completeIn(this.#ctx, ctx, tx);
  }

  /**
   * Removes up to `limit` expired rows of each table (claims whose lease ran out, records past their
   * retention, kept deliveries past theirs) and resolves with how many. The store runs it on its own, off the request path; call it if you turned
   * that off (`sweepIntervalMs: 0`).
   */
  async sweep(limit = this.sweepBatch): Promise<number> {
    return sweep(this.#ctx, limit);
  }

  /** Stops the automatic sweep and waits for one in progress. Leaves the client open: it is yours. */
  async shutdown(): Promise<void> {
    await this.#sweeper.shutdown();
  }
}
