import type { StoredEvent } from '@sms-webhooks/core/store';
import { INSPECT } from './scripts.js';
import { badReply, bounded, run, type StoreContext, text } from './store-context.js';

/** What Redis holds for the event id `key` (see DedupeStore.inspect), its expiry on Redis's clock. */
export async function inspect(ctx: StoreContext, key: string): Promise<StoredEvent | undefined> {
  return stored(await bounded(ctx, run(ctx, INSPECT, key, []), INSPECT, key));
}

/**
 * `inspect` of many keys, answers in the order given (see DedupeStore.inspectMany). The scripts go out
 * together, so the client writes them back to back (a pipeline, each routed to its node on a cluster),
 * and one time limit covers the batch.
 */
export async function inspectMany(
  ctx: StoreContext,
  keys: readonly string[],
): Promise<Array<StoredEvent | undefined>> {
  if (keys.length === 0) return [];
  const replies = await bounded(
    ctx,
    Promise.all(keys.map((key) => run(ctx, INSPECT, key, []))),
    INSPECT,
    `${keys.length} keys from ${keys[0]}`,
  );
  return (replies as unknown[]).map(stored);
}

function stored(reply: unknown): StoredEvent | undefined {
  if (reply === null || reply === false || reply === undefined) return undefined;
  const [kind, ttl, time] = Array.isArray(reply) ? reply.map(text) : [];
  const left = Number(ttl);
  // PTTL -1 (no expiry) never happens for our keys; -2 (gone between the reads) cannot, in one script.
  if ((kind !== 'p' && kind !== 'c') || !Number.isFinite(left) || left < 0) throw badReply(INSPECT, reply);
  return { state: kind === 'c' ? 'completed' : 'in-flight', expiresAt: Number(time) + left };
}
