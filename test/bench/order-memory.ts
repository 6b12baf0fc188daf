// MemoryStore's order records (issue 34, item 8): claimOrder+completeOrder pairs per second on an empty
// store and on one at its bound (100,000 messages, the default maxEntries), and heap bytes per record
// kept, with keys and versions made as the receiver makes them (`order: true` on parsed events).
// Run: pnpm exec tsx test/bench/order-memory.ts [--quick]
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type AnyWebhookEvent, MemoryStore } from '@sms-webhooks/core';
import { orderOption } from '../../packages/core/src/receiver/order.js';

const quick = process.argv.includes('--quick');
const BOUND = 100_000;
const PAIRS = quick ? 50_000 : 200_000;
const ROUNDS = quick ? 3 : 5;
const LEASE_MS = 5 * 60 * 1000;
const RETAIN_MS = 24 * 60 * 60 * 1000;
const slotOf = orderOption(true)!;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function gc(): void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed();
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

let made = 0;
/** Slots of parsed status events (ids from JSON.parse, as the receiver gets them), one message each. */
function slots(n: number): { key: string; version: string }[] {
  const out = [];
  for (let i = 0; i < n; i++) {
    const seq = made++;
    const at = new Date(Date.UTC(2026, 10, 26) + seq).toISOString();
    const json = `{"id":"evt_${seq.toString(36).padStart(24, '0')}","type":"message.delivered","created_at":"${at}","data":{"id":"msg_${seq.toString(36).padStart(24, '0')}","updated_at":"${at}"}}`;
    const slot = slotOf(JSON.parse(json) as AnyWebhookEvent);
    if (slot === undefined || 'invalid' in slot) throw new Error('no slot');
    out.push(slot);
  }
  return out;
}

async function pairs(store: MemoryStore, batch: { key: string; version: string }[]): Promise<number> {
  const started = performance.now();
  for (const { key, version } of batch) {
    if ((await store.claimOrder(key, version, 'token', LEASE_MS)) !== 'claimed') throw new Error('refused');
    await store.completeOrder(key, version, 'token', RETAIN_MS);
  }
  return batch.length / ((performance.now() - started) / 1000);
}

const empty: number[] = [];
const full: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  empty.push(await pairs(new MemoryStore(), slots(Math.min(PAIRS, BOUND))));
  const store = new MemoryStore();
  await pairs(store, slots(BOUND)); // to the bound
  full.push(await pairs(store, slots(PAIRS)));
}

gc();
const store = new MemoryStore();
const batch = slots(BOUND);
gc();
const before = process.memoryUsage().heapUsed;
await pairs(store, batch);
batch.length = 0; // only the store holds the strings now
gc();
gc();
const perRecord = (process.memoryUsage().heapUsed - before) / BOUND;

console.log(
  `claimOrder+completeOrder pairs: empty store ${median(empty).toFixed(0)}/s, at its bound of ${BOUND} ` +
    `${median(full).toFixed(0)}/s (median of ${ROUNDS}); heap per record kept ${perRecord.toFixed(0)} B`,
);
