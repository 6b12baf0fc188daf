import type { ClaimResult } from '@sms-webhooks/core/store';
import { CLAIM, COMPLETE, type LuaScript, RELEASE, RENEW } from './scripts.js';
import { bounded, flag, oneOf, run, type StoreContext, text } from './store-context.js';
import { duration } from './store-options.js';

const CLAIM_RESULTS = new Set<string>(['claimed', 'in-flight', 'completed']);

/** Claims the event id `key` for `token` (see DedupeStore.claim); a claim that answers too late is given back. */
export async function claim(
  ctx: StoreContext,
  key: string,
  token: string,
  leaseMs: number,
): Promise<ClaimResult> {
  const work = run(ctx, CLAIM, key, [token, duration('leaseMs', leaseMs)]);
  const reply = await claimReply(ctx, work, CLAIM, key, () => {
    release(ctx, key, token).catch(() => {});
  });
  return oneOf<ClaimResult>(CLAIM, reply, CLAIM_RESULTS);
}

/** Completes `token`'s claim of `key`, kept for `retainMs` (see DedupeStore.complete). */
export async function complete(
  ctx: StoreContext,
  key: string,
  token: string,
  retainMs: number,
): Promise<boolean> {
  return flag(ctx, run(ctx, COMPLETE, key, [token, duration('retainMs', retainMs)]), COMPLETE, key);
}

/** Frees `token`'s claim of `key` (see DedupeStore.release). */
export async function release(ctx: StoreContext, key: string, token: string): Promise<boolean> {
  return flag(ctx, run(ctx, RELEASE, key, [token]), RELEASE, key);
}

/** Sets `token`'s lease of `key` to `leaseMs` from now (see DedupeStore.renew). */
export async function renew(
  ctx: StoreContext,
  key: string,
  token: string,
  leaseMs: number,
): Promise<boolean> {
  return flag(ctx, run(ctx, RENEW, key, [token, duration('leaseMs', leaseMs)]), RENEW, key);
}

/**
 * The reply to a claim script, within the time limit. The receiver answers 503 for a claim that timed out,
 * so nobody will process under that token. Clients queue commands while disconnected (ioredis and
 * node-redis both do by default), so the claim may still reach Redis later; if it does and wins, `undo`
 * frees what it took at once rather than have redeliveries answered 409 until the lease runs out.
 */
export async function claimReply(
  ctx: StoreContext,
  work: Promise<unknown>,
  script: LuaScript,
  key: string,
  undo: () => void,
): Promise<unknown> {
  try {
    return text(await bounded(ctx, work, script, key));
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === 'ERR_SMS_REDIS_TIMEOUT') {
      work.then(
        (reply) => {
          if (text(reply) === 'claimed') undo();
        },
        () => {},
      );
    }
    throw error;
  }
}
