/**
 * `fn` of each item, at most `limit` running at once, in the items' order of start; resolves to the
 * answers in the items' order. What every store or queue read of the audit goes through: a burst of
 * 20,000 events must never become 20,000 calls in flight.
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
