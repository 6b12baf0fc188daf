import type {
  ClaimWithOrderResult,
  ObjectSlot,
  OrderClaim,
  OrderClaimResult,
} from '@sms-webhooks/core/store';
import { claimResult, claimRows, leaseValues } from './claims.js';
import type { Run } from './clients.js';
import { PostgresStoreError } from './errors.js';
import { storedKey } from './event-key.js';
import { objectBusyIndex } from './statements.js';
import { badReply, bounded, flag, type StoreContext } from './store-context.js';
import { duration } from './store-options.js';

const ORDER_RESULTS = new Set<string>(['claimed', 'stale', 'in-flight']);
const BOTH_RESULTS = new Set<string>([
  'claimed',
  'in-flight',
  'completed',
  'stale',
  'object-in-flight',
  'retry',
]);

export async function claimOrder(
  ctx: StoreContext,
  key: string,
  version: string,
  token: string,
  leaseMs: number,
): Promise<OrderClaimResult> {
  const values = [storedKey(key), version, token, duration('leaseMs', leaseMs)];
  const rows = await bounded(
    ctx,
    ordered(ctx, ctx.run('claimOrder', ctx.order.claimOrder, values)),
    `order claim of ${key.slice(0, 80)}`,
  );
  return claimResult<OrderClaimResult>('claimOrder', rows, ORDER_RESULTS);
}

/**
 * `claim` and `claimOrder` in one statement, one round trip (see DedupeStore.claimWithOrder). Only
 * when a row that ran out is in the way (a crashed instance's), or another claim wrote one since the
 * statement's snapshot, does it take a second statement to clear what ran out and a third to ask again.
 */
export async function claimWithOrder(
  ctx: StoreContext,
  orderIndex: OrderIndexCheck,
  key: string,
  token: string,
  leaseMs: number,
  object: ObjectSlot,
): Promise<ClaimWithOrderResult> {
  await orderIndex.check(ctx);
  const first = await claimBoth(ctx, key, token, leaseMs, object);
  if (first !== 'retry') return first;
  await bounded(
    ctx,
    ctx.run('clearExpired', ctx.order.clearExpired, [storedKey(key), storedKey(object.key)]),
    `claim of ${key.slice(0, 80)}`,
  );
  const second = await claimBoth(ctx, key, token, leaseMs, object);
  // Still unexplained: the service asks again later.
  return second === 'retry' ? 'object-in-flight' : second;
}

async function claimBoth(
  ctx: StoreContext,
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
  const work = ordered(ctx, ctx.run('claimWithOrder', ctx.order.claimWithOrder, values));
  const rows = await claimRows(ctx, work, key, token);
  const result = claimResult<ClaimWithOrderResult | 'retry'>('claimWithOrder', rows, BOTH_RESULTS);
  ctx.claimed();
  return result;
}

/**
 * Once: the unique index that lets one event at a time hold an object. A table migrated before it
 * existed would let two statuses of one message run at once, so its absence is an error that says
 * what to run.
 */
export class OrderIndexCheck {
  #checked: Promise<void> | undefined;

  check(ctx: StoreContext): Promise<void> {
    this.#checked ??= bounded(
      ctx,
      ctx.run('exists', ctx.sql.exists, [objectBusyIndex(ctx.table)]),
      'the order index check',
    ).then(
      ([row]) => {
        if (row?.ok === true) return;
        this.#checked = undefined; // checked again next time: a migration may run meanwhile
        throw new PostgresStoreError(
          'ERR_SMS_POSTGRES_NO_TABLE',
          `the table ${ctx.table} has no object_key column and index (the receiver's \`order\` option needs them): call await store.migrate() at start-up, or run migrationSql() again with your migrations (it adds them).`,
        );
      },
      (error: unknown) => {
        this.#checked = undefined;
        throw error;
      },
    );
    return this.#checked;
  }
}

/**
 * `completeOrder` and `complete` in one statement (see DedupeStore.completeWithOrder). An event
 * claimed by claimWithOrder carries its object's version in its own row, so completing that row is
 * the whole step; otherwise (its object was taken by claimOrder, or the claim is no longer this
 * token's) a second statement advances the order table's version and completes the event together.
 */
export async function completeWithOrder(
  ctx: StoreContext,
  key: string,
  token: string,
  retainMs: number,
  object: { key: string; version: string },
): Promise<boolean> {
  const retain = duration('retainMs', retainMs);
  const what = `completion of ${key.slice(0, 80)}`;
  const carried = [storedKey(key), token, retain, storedKey(object.key), object.version];
  const done = await bounded(
    ctx,
    ordered(ctx, ctx.run('completeCarried', ctx.order.completeCarried, carried)),
    what,
  );
  if (done.length === 1) return true;
  const values = [storedKey(object.key), object.version, token, retain, storedKey(key)];
  const rows = await bounded(
    ctx,
    ordered(ctx, ctx.run('completeWithOrder', ctx.order.completeWithOrder, values)),
    what,
  );
  const row = rows[0] as { ok?: unknown } | undefined;
  if (rows.length !== 1 || typeof row?.ok !== 'boolean') throw badReply('completeWithOrder', rows);
  return row.ok;
}

export async function completeOrder(
  ctx: StoreContext,
  key: string,
  version: string,
  token: string,
  retainMs: number,
): Promise<boolean> {
  return completeOrderOn(ctx, ctx.run, { key, version, token }, duration('retainMs', retainMs));
}

export async function releaseOrder(ctx: StoreContext, key: string, token: string): Promise<boolean> {
  const work = ordered(ctx, ctx.run('releaseOrder', ctx.order.releaseOrder, [storedKey(key), token]));
  return flag(ctx, work, 'releaseOrder', key);
}

export async function renewOrder(
  ctx: StoreContext,
  key: string,
  token: string,
  leaseMs: number,
): Promise<boolean> {
  const work = ctx.run('renewOrder', ctx.order.renewOrder, leaseValues(key, token, leaseMs));
  return flag(ctx, ordered(ctx, work), 'renewOrder', key);
}

/** Advances the object's version with `run`: the store's client, or a handler's transaction. */
export async function completeOrderOn(
  ctx: StoreContext,
  run: Run,
  order: OrderClaim,
  retainMs: number,
): Promise<boolean> {
  const values = [storedKey(order.key), order.version, order.token, retainMs];
  const rows = await bounded(
    ctx,
    ordered(ctx, run('completeOrder', ctx.order.completeOrder, values)),
    `order completion of ${order.key.slice(0, 80)}`,
  );
  const row = rows[0] as { ok?: unknown; n?: unknown } | undefined;
  if (rows.length !== 1 || typeof row?.ok !== 'boolean') throw badReply('completeOrder', rows);
  return row.ok;
}

/** A missing order table (a database migrated before `order` existed) says what to run. */
function ordered<T>(ctx: StoreContext, work: Promise<T>): Promise<T> {
  return work.catch((error: unknown) => {
    const code = (error as { code?: unknown } | null)?.code;
    // 42P01: no order table; 42703: no object_key column (both added since the first migration).
    if (code !== '42P01' && code !== '42703') throw error;
    throw new PostgresStoreError(
      'ERR_SMS_POSTGRES_NO_TABLE',
      `the order table ${ctx.table}_order or the object_key column of ${ctx.table} does not exist (the receiver's \`order\` option needs them): call await store.migrate() at start-up, or run migrationSql() again with your migrations.`,
    );
  });
}
