import type { ClaimWithOrderResult, DedupeStore, ObjectSlot } from './dedupe-store.js';

/**
 * `claimWithOrder` made of `claim` and `claimOrder`, for a store that cannot take both in one step
 * everywhere (RedisStore on a cluster, where an event and its object live in different slots): the same
 * answers and the same records, in two round trips and, when the object refuses, a third that completes
 * (stale) or frees (in flight) the event. Between the steps the event is held: a crash there leaves it
 * to its lease, as a crash after any claim does.
 */
export async function claimThenOrder(
  store: DedupeStore,
  key: string,
  token: string,
  leaseMs: number,
  object: ObjectSlot,
): Promise<ClaimWithOrderResult> {
  const claimed = await store.claim(key, token, leaseMs);
  if (claimed !== 'claimed') return claimed;
  let result: Awaited<ReturnType<NonNullable<DedupeStore['claimOrder']>>>;
  try {
    result = await store.claimOrder!(object.key, object.version, token, leaseMs);
  } catch (error) {
    store.release(key, token).catch(() => {}); // best effort: otherwise the lease runs out
    throw error;
  }
  if (result === 'claimed') return 'claimed';
  if (result === 'stale') {
    await store.complete(key, token, object.retainMs);
    return 'stale';
  }
  await store.release(key, token);
  return 'object-in-flight';
}
