import type { ClaimResult } from '@sms-webhooks/core/store';
import { storedKey } from './event-key.js';
import { badReply, bounded, flag, type StoreContext } from './store-context.js';
import { duration } from './store-options.js';

const CLAIM_RESULTS = new Set<string>(['claimed', 'in-flight', 'completed']);

/** A claim's or a renewal's statement values: the stored key, the token, the lease checked. */
export function leaseValues(key: string, token: string, leaseMs: number): unknown[] {
  return [storedKey(key), token, duration('leaseMs', leaseMs)];
}

export async function claim(
  ctx: StoreContext,
  key: string,
  token: string,
  leaseMs: number,
): Promise<ClaimResult> {
  const work = ctx.run('claim', ctx.sql.claim, leaseValues(key, token, leaseMs));
  const result = claimResult<ClaimResult>('claim', await claimRows(ctx, work, key, token), CLAIM_RESULTS);
  ctx.claimed();
  return result;
}

export async function complete(
  ctx: StoreContext,
  key: string,
  token: string,
  retainMs: number,
): Promise<boolean> {
  const values = [storedKey(key), token, duration('retainMs', retainMs)];
  return flag(ctx, ctx.run('complete', ctx.sql.complete, values), 'complete', key);
}

export async function release(ctx: StoreContext, key: string, token: string): Promise<boolean> {
  return flag(ctx, ctx.run('release', ctx.sql.release, [storedKey(key), token]), 'release', key);
}

export async function renew(
  ctx: StoreContext,
  key: string,
  token: string,
  leaseMs: number,
): Promise<boolean> {
  return flag(ctx, ctx.run('renew', ctx.sql.renew, leaseValues(key, token, leaseMs)), 'renew', key);
}

/** The rows of a claim statement, within the time limit; a claim that answers too late is given back. */
export async function claimRows<T extends { result?: unknown }[]>(
  ctx: StoreContext,
  work: Promise<T>,
  key: string,
  token: string,
): Promise<T> {
  try {
    return await bounded(ctx, work, `claim of ${key.slice(0, 80)}`);
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === 'ERR_SMS_POSTGRES_TIMEOUT') {
      undoLateClaim(ctx, work, key, token);
    }
    throw error;
  }
}

/** The `result` a claim statement answered, one of `results`: any other reply is not the statement's. */
export function claimResult<R extends string>(
  operation: string,
  rows: { result?: unknown }[],
  results: ReadonlySet<string>,
): R {
  const result = rows[0]?.result;
  if (typeof result !== 'string' || !results.has(result)) throw badReply(operation, rows);
  return result as R;
}

/**
 * The receiver answered 503 for a claim that timed out, so nobody will process under that token. The
 * statement may still reach the database (a pool hands it a connection once one frees up): when its
 * late answer says `claimed`, give the key back at once rather than have redeliveries answered 409
 * until the lease runs out (the event's, and its object's when `object` was claimed with it).
 */
function undoLateClaim(
  ctx: StoreContext,
  work: Promise<{ result?: unknown }[]>,
  key: string,
  token: string,
): void {
  work.then(
    (rows) => {
      // With `order`, the event's row holds its object too: freeing it frees both.
      if (rows[0]?.result === 'claimed') release(ctx, key, token).catch(() => {});
    },
    () => {},
  );
}
