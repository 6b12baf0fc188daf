// MemoryStore's order records (issue 34, item 8): claimOrder+completeOrder pairs per second on an empty
// store and on one at its bound (100,000 messages, the default maxEntries), and heap bytes per record
// kept, with keys and versions made as the receiver makes them (`order: true` on parsed events).
// Run: pnpm exec tsx test/bench/order-memory.ts [--quick] [--pairs=N]
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type AnyWebhookEvent, MemoryStore } from '@sms-webhooks/core';
import { orderOption } from '../../packages/core/src/receiver/order.js';

const quick = process.argv.includes('--quick');
const BOUND = 100_000;
const pairsArg = process.argv.find((a) => a.startsWith('--pairs='));
const PAIRS = pairsArg ? Number(pairsArg.slice(8)) : quick ? 50_000 : 200_000;
const ROUNDS = quick ? 3 : 5;
const LEASE_MS = 5 * 60 * 1000;
const RETAIN_MS = 24 * 60 * 60 * 1000;
const slotOf = orderOption(true)!;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The gc() of --expose-gc, or one fetched through V8 flags when the process was started without it. */
function getGc(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}
const gc = getGc();

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

// Each slot made just before its claim, as the receiver does (the strings are young when they arrive).
gc();
const before = process.memoryUsage().heapUsed;
const store = new MemoryStore();
(globalThis as { kept?: unknown }).kept = store; // alive until the measurement, whatever the JIT sees
for (let i = 0; i < BOUND; i++) await pairs(store, slots(1));
gc();
gc();
const perRecord = (process.memoryUsage().heapUsed - before) / BOUND;

console.log(
  `claimOrder+completeOrder pairs: empty store ${median(empty).toFixed(0)}/s, at its bound of ${BOUND} ` +
    `${median(full).toFixed(0)}/s (median of ${ROUNDS}); heap per record kept ${perRecord.toFixed(0)} B`,
);
