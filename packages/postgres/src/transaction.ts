import type { OrderClaim } from '@sms-webhooks/core/store';
import { type PgTransactionClient, type Run, runIn } from './clients.js';
import { PostgresStoreError } from './errors.js';
import { storedKey } from './event-key.js';
import { completeOrderOn } from './order-claims.js';
import type { StoreContext } from './store-context.js';
import { fail } from './store-options.js';
import { refuseNonTransactional } from './transaction-client.js';

/** What `transaction` and `completeIn` need of the handler's context: `ctx.claim`. */
export interface ClaimContext {
  claim?: { key: string; token: string } | undefined;
  /** The object slot of the receiver's `order` option: its version advances in the same transaction. */
  order?: OrderClaim | undefined;
}

/** See PostgresStore.transaction. */
export async function transaction<Tx, R>(
  ctx: StoreContext<Tx>,
  claimContext: ClaimContext,
  fn: (tx: Tx) => R | Promise<R>,
): Promise<R> {
  if (typeof fn !== 'function') fail('transaction(ctx, fn) needs a function.');
  const claim = claimContext?.claim;
  if (ctx.postgresJs !== undefined) {
    return (await ctx.postgresJs.begin(async (tx) => {
      const result = await fn(tx);
      if (claim) await commit(ctx, runIn(tx, ctx.prepare), claim, claimContext.order);
      return result;
    })) as R;
  }
  if (ctx.pool === undefined) {
    fail(
      'transaction() needs the store to hold a pg pool or a postgres.js sql; with { query }, open the ' +
        'transaction yourself and call await store.completeIn(ctx, tx) as its last statement.',
    );
  }
  const client = (await ctx.pool.connect()) as unknown as PgTransactionClient;
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
    if (claim) await commit(ctx, runIn(client, ctx.prepare), claim, claimContext.order);
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

/** See PostgresStore.completeIn. */
export async function completeIn(ctx: StoreContext, claimContext: ClaimContext, tx: unknown): Promise<void> {
  const claim = claimContext?.claim;
  refuseNonTransactional(tx);
  const run = runIn(tx, ctx.prepare);
  if (claim) await commit(ctx, run, claim, claimContext?.order);
}

/** In the handler's transaction: the object's version first (`order`), then the event's record. */
async function commit(
  ctx: StoreContext,
  run: Run,
  claim: { key: string; token: string },
  order?: OrderClaim,
): Promise<void> {
  if (order !== undefined) await completeOrderOn(ctx, run, order, ctx.retainMs);
  const rows = await run('commit', ctx.sql.commit, [storedKey(claim.key), claim.token, ctx.retainMs]);
  if (rows.length !== 1) {
    throw new PostgresStoreError(
      'ERR_SMS_POSTGRES_CLAIM_LOST',
      `this delivery no longer holds the claim on ${claim.key.slice(0, 80)} (its lease ran out and another ` +
        'delivery took it over, or another transaction of this delivery completed it already); the ' +
        'transaction is rolled back. Keep handlers shorter than leaseMs, and use one transaction per event.',
    );
  }
}
