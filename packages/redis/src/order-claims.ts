import type { DedupeStore } from '@sms-webhooks/core';
import {
  type ClaimWithOrderResult,
  claimThenOrder,
  type ObjectSlot,
  type OrderClaimResult,
} from '@sms-webhooks/core/store';
import { claimReply, complete, release } from './claims.js';
import { orderKey, storedKey } from './event-key.js';
import {
  CLAIM_ORDER,
  CLAIM_WITH_ORDER,
  COMPLETE_ORDER,
  COMPLETE_WITH_ORDER,
  RELEASE_ORDER,
  RENEW_ORDER,
} from './scripts.js';
import { bounded, flag, oneOf, runOn, type StoreContext, text } from './store-context.js';
import { duration } from './store-options.js';

const ORDER_RESULTS = new Set<string>(['claimed', 'stale', 'in-flight']);
const BOTH_RESULTS = new Set<string>(['claimed', 'in-flight', 'completed', 'stale', 'object-in-flight']);

function isCrossSlot(error: unknown): boolean {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' && /^(ERR )?CROSSSLOT\b/.test(message);
}

/** Claims the object `key` at `version` for `token` (see DedupeStore.claimOrder). */
export async function claimOrder(
  ctx: StoreContext,
  key: string,
  version: string,
  token: string,
  leaseMs: number,
): Promise<OrderClaimResult> {
  const redisKey = orderKey(ctx.prefix, key);
  const work = runOn(ctx, CLAIM_ORDER, [redisKey], [version, token, duration('leaseMs', leaseMs)]);
  const reply = text(await bounded(ctx, work, CLAIM_ORDER, key));
  return oneOf<OrderClaimResult>(CLAIM_ORDER, reply, ORDER_RESULTS);
}

/**
 * `claim` and `claimOrder` in one script, one round trip (see DedupeStore.claimWithOrder). On Redis
 * Cluster the event and its object live in different slots: there it is `store`'s two calls.
 */
export async function claimWithOrder(
  ctx: StoreContext,
  store: DedupeStore,
  key: string,
  token: string,
  leaseMs: number,
  object: ObjectSlot,
): Promise<ClaimWithOrderResult> {
  if (!ctx.oneStep) return claimThenOrder(store, key, token, leaseMs, object);
  const keys = [storedKey(ctx.prefix, key), orderKey(ctx.prefix, object.key)];
  const args = [token, duration('leaseMs', leaseMs), object.version, duration('retainMs', object.retainMs)];
  const work = runOn(ctx, CLAIM_WITH_ORDER, keys, args);
  let reply: unknown;
  try {
    reply = await claimReply(ctx, work, CLAIM_WITH_ORDER, key, () => {
      release(ctx, key, token).catch(() => {});
      releaseOrder(ctx, object.key, token).catch(() => {});
    });
  } catch (error) {
    if (!isCrossSlot(error)) throw error;
    // A cluster behind sendCommand: nothing ran; from now on, the two calls.
    ctx.oneStep = false;
    return claimThenOrder(store, key, token, leaseMs, object);
  }
  return oneOf<ClaimWithOrderResult>(CLAIM_WITH_ORDER, reply, BOTH_RESULTS);
}

/** `completeOrder` and `complete` in one script (see DedupeStore.completeWithOrder); two on a cluster. */
export async function completeWithOrder(
  ctx: StoreContext,
  key: string,
  token: string,
  retainMs: number,
  object: { key: string; version: string },
): Promise<boolean> {
  if (ctx.oneStep) {
    const keys = [storedKey(ctx.prefix, key), orderKey(ctx.prefix, object.key)];
    const args = [token, duration('retainMs', retainMs), object.version];
    try {
      return await flag(ctx, runOn(ctx, COMPLETE_WITH_ORDER, keys, args), COMPLETE_WITH_ORDER, key);
    } catch (error) {
      if (!isCrossSlot(error)) throw error;
      ctx.oneStep = false;
    }
  }
  await completeOrder(ctx, object, token, retainMs);
  return complete(ctx, key, token, retainMs);
}

/** Advances `object` to its version and frees `token`'s lease of it (see DedupeStore.completeOrder). */
export async function completeOrder(
  ctx: StoreContext,
  object: { key: string; version: string },
  token: string,
  retainMs: number,
): Promise<boolean> {
  const args = [object.version, token, duration('retainMs', retainMs)];
  const work = runOn(ctx, COMPLETE_ORDER, [orderKey(ctx.prefix, object.key)], args);
  return flag(ctx, work, COMPLETE_ORDER, object.key);
}

/** Frees `token`'s lease of the object `key`, keeping its version (see DedupeStore.releaseOrder). */
export async function releaseOrder(ctx: StoreContext, key: string, token: string): Promise<boolean> {
  return flag(ctx, runOn(ctx, RELEASE_ORDER, [orderKey(ctx.prefix, key)], [token]), RELEASE_ORDER, key);
}

/** Sets `token`'s lease of the object `key` to `leaseMs` from now (see DedupeStore.renewOrder). */
export async function renewOrder(
  ctx: StoreContext,
  key: string,
  token: string,
  leaseMs: number,
): Promise<boolean> {
  const work = runOn(ctx, RENEW_ORDER, [orderKey(ctx.prefix, key)], [token, duration('leaseMs', leaseMs)]);
  return flag(ctx, work, RENEW_ORDER, key);
}
