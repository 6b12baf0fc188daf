import { MemoryStore } from '@sms-webhooks/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryOrder } from '../src/receiver/memory-order.js';

// Issue 34, item 8: at its bound MemoryStore's order map scanned every record for each new message.
// Work is counted, not timed: entries any Map iteration visits, and the records the order map looks at.

const v = (n: number) => `${String(n).padStart(15, '0')}.2.${'0'.repeat(15)}.evt_${n}`;

/** Counts the entries every Map iteration in the process hands out while `counting` is on. */
function countMapIteration() {
  const tally = { entries: 0 };
  for (const name of [Symbol.iterator, 'entries', 'keys', 'values'] as const) {
    const original = Map.prototype[name] as (this: Map<unknown, unknown>) => Iterator<unknown>;
    vi.spyOn(Map.prototype, name as 'entries').mockImplementation(function (this: Map<unknown, unknown>) {
      const it = original.call(this);
      const next = it.next.bind(it);
      it.next = () => {
        const step = next();
        if (!step.done) tally.entries++;
        return step;
      };
      return it as never;
    });
  }
  return tally;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("MemoryStore's order map at its bound", () => {
  it('a new message past maxEntries iterates no Map: the rate stays that of an empty store', async () => {
    const store = new MemoryStore({ maxEntries: 1000 });
    const pair = async (i: number) => {
      expect(await store.claimOrder(`message:msg_${i}`, v(i), `t${i}`, 60_000)).toBe('claimed');
      await store.completeOrder(`message:msg_${i}`, v(i), `t${i}`, 3_600_000);
    };
    for (let i = 0; i < 1000; i++) await pair(i); // full
    const tally = countMapIteration();
    for (let i = 1000; i < 4000; i++) await pair(i);
    expect(tally.entries / 3000).toBeLessThanOrEqual(1);
    // The oldest went, the newest stayed: msg_0's version is forgotten, msg_3999's is kept.
    expect(await store.claimOrder('message:msg_0', v(0), 'again', 60_000)).toBe('claimed');
    expect(await store.claimOrder('message:msg_3999', v(3999), 'again', 60_000)).toBe('stale');
  });

  it('each insertion looks at a bounded number of records, whatever the mix of expiries', () => {
    const order = new MemoryOrder(500);
    let now = 0;
    let insertions = 0;
    for (let i = 0; i < 20_000; i++) {
      now += 7;
      const key = `message:msg_${i}`;
      // Leases that end soon, retentions that last, some released, some renewed, some expiring.
      order.claim(key, v(i), `t${i}`, 50 + (i % 5) * 100, now);
      insertions++;
      if (i % 3 === 0) order.complete(key, v(i), `t${i}`, 10_000 + (i % 7) * 1000, now);
      else if (i % 3 === 1) order.release(key, `t${i}`, now);
      if (i % 11 === 0 && i > 0) order.renew(`message:msg_${i - 1}`, `t${i - 1}`, 5000, now);
      expect(order.size).toBeLessThanOrEqual(500);
    }
    // At most two expired records swept and one evicted per new record.
    expect(order.visited / insertions).toBeLessThanOrEqual(3);
  });

  it('past the bound the least recently written record goes; a renewed lease is written, so it stays', () => {
    const order = new MemoryOrder(3);
    order.claim('a', v(1), 'ta', 1000, 0);
    order.claim('b', v(1), 'tb', 1000, 1);
    order.claim('c', v(1), 'tc', 1000, 2);
    expect(order.renew('a', 'ta', 1000, 3)).toBe(true); // a is now the most recently written
    order.claim('d', v(1), 'td', 1000, 4); // full: b goes
    expect(order.claim('b', v(2), 'other', 1000, 5)).toBe('claimed'); // b was forgotten; c goes now
    expect(order.claim('a', v(2), 'other', 1000, 6)).toBe('in-flight');
    expect(order.claim('d', v(2), 'other', 1000, 6)).toBe('in-flight');
    expect(order.size).toBe(3);
  });

  it('expired records are swept from the head as new ones come, before any live one is evicted', () => {
    const order = new MemoryOrder(3);
    order.claim('a', v(1), 'ta', 10, 0);
    order.complete('a', v(1), 'ta', 10, 0); // expires at 10
    order.claim('b', v(1), 'tb', 1000, 1);
    order.claim('c', v(1), 'tc', 1000, 2);
    order.claim('d', v(1), 'td', 1000, 20); // a has expired: swept, nothing live evicted
    expect(order.claim('b', v(2), 'other', 1000, 21)).toBe('in-flight');
    expect(order.claim('c', v(2), 'other', 1000, 21)).toBe('in-flight');
    expect(order.size).toBe(3);
  });
});
