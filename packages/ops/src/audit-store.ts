import type { DedupeStore, StoredEvent } from '@sms-webhooks/core/store';
import { mapBounded } from './bounded.js';

/** Keys per `inspectMany` call: one statement or one pipeline each. */
export const BATCH = 500;
/** `inspect` calls in flight at once for a store without `inspectMany`. */
const PARALLEL = 32;

/**
 * What the store holds for each key, in order, read in batches: never every key at once (20,000
 * concurrent reads overrun a store's command time-out). `onBatch` gets the running count.
 */
export async function readStore(
  store: DedupeStore,
  keys: readonly string[],
  onBatch: (done: number) => void,
): Promise<Array<StoredEvent | undefined>> {
  const out: Array<StoredEvent | undefined> = [];
  for (let start = 0; start < keys.length; start += BATCH) {
    const batch = keys.slice(start, start + BATCH);
    const seen = store.inspectMany
      ? await store.inspectMany(batch)
      : await mapBounded(batch, PARALLEL, (key) => store.inspect!(key));
    if (!Array.isArray(seen) || seen.length !== batch.length) {
      throw new Error(
        `inspectMany answered ${Array.isArray(seen) ? `${seen.length} records` : typeof seen} for ${batch.length} keys.`,
      );
    }
    out.push(...seen);
    onBatch(out.length);
  }
  return out;
}
