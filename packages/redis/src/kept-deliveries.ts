import { isKeptDelivery, type KeptDelivery } from '@sms-webhooks/core/store';
import { RedisStoreError } from './errors.js';
import { keptKey } from './event-key.js';
import { bounded, type StoreContext, text } from './store-context.js';
import { duration } from './store-options.js';

/**
 * Keeps a delivery under `<prefix>kept:<id>` for `retainMs` (see DedupeStore.keepDelivery): one SET,
 * sent beside the claim's script, so the two share the round trip.
 */
export async function keepDelivery(
  ctx: StoreContext,
  key: string,
  delivery: KeptDelivery,
  retainMs: number,
): Promise<void> {
  const redisKey = keptKey(ctx.prefix, key);
  const work = ctx.send(redisKey, [
    'SET',
    redisKey,
    JSON.stringify(delivery),
    'PX',
    duration('retainMs', retainMs),
  ]);
  await bounded(ctx, work, 'keepDelivery', key);
}

/** What `keepDelivery` kept for the event id `key`, while its retention lasts (see DedupeStore.keptDelivery). */
export async function keptDelivery(ctx: StoreContext, key: string): Promise<KeptDelivery | undefined> {
  const redisKey = keptKey(ctx.prefix, key);
  const reply = await bounded(ctx, ctx.send(redisKey, ['GET', redisKey]), 'keptDelivery', key);
  if (reply === null || reply === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(String(text(reply)));
  } catch {
    parsed = undefined;
  }
  if (!isKeptDelivery(parsed)) {
    throw new RedisStoreError(
      'ERR_SMS_REDIS_REPLY',
      `${redisKey.slice(0, 120)} does not hold a kept delivery.`,
    );
  }
  return parsed;
}
