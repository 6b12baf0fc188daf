import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { HOUR, type StoreFactory } from './dedupe-store-kit.js';
import { object, ops, v } from './order-kit.js';
import { sleep, type TestApi } from './test-api.js';

const event = () => `evt_contract_${randomBytes(8).toString('hex')}`;

/** A fresh store, its order methods and `claimBoth` (an hour unless given); undefined without the method. */
async function both(makeStore: StoreFactory) {
  const store = await makeStore();
  if (typeof store.claimWithOrder !== 'function') return undefined;
  const o = ops(store);
  const claimBoth = (e: string, k: string, version: string, token: string, ms = HOUR, retainMs = HOUR) =>
    store.claimWithOrder!(e, token, ms, { key: k, version, retainMs });
  return { store, o, claimBoth };
}

/**
 * The rows of `claimWithOrder` and `completeWithOrder`, the optional one-step claim and completion of an
 * event and its object: each row passes at once for a store without the method (the receiver then
 * makes the two calls the other rows check).
 */
export function claimWithOrderContract(makeStore: StoreFactory, api: TestApi): void {
  claimBothRows(makeStore, api);
  completeBothRows(makeStore, api);
}

/** What `claimWithOrder` takes, and what it leaves alone when the event or its object is taken or stale. */
function claimBothRows(makeStore: StoreFactory, { it }: TestApi): void {
  it('claimWithOrder: holds the event and its object under one token, for leaseMs', async () => {
    const s = await both(makeStore);
    if (s === undefined) return;
    const [e, k] = [event(), object()];
    assert.equal(await s.claimBoth(e, k, v(1), 'a'), 'claimed');
    assert.equal(await s.store.claim(e, 'b', HOUR), 'in-flight', 'the event is held');
    assert.equal(await s.o.claim(k, v(2), 'b'), 'in-flight', 'the object is held');
    assert.equal(await s.o.complete(k, v(1), 'a'), true);
    assert.equal(await s.store.complete(e, 'a', HOUR), true);
    assert.equal(await s.o.claim(k, v(1), 'c'), 'stale');
    const [e2, k2] = [event(), object()];
    assert.equal(await s.claimBoth(e2, k2, v(1), 'short', 60), 'claimed');
    await sleep(120);
    assert.equal(await s.store.claim(e2, 'next', HOUR), 'claimed', 'the event lease ran out');
    assert.equal(await s.o.claim(k2, v(2), 'next'), 'claimed', 'the object lease ran out');
  });

  it('claimWithOrder: a taken or completed event answers as claim does, and leaves its object alone', async () => {
    const s = await both(makeStore);
    if (s === undefined) return;
    const [e, k] = [event(), object()];
    await s.store.claim(e, 'a', HOUR);
    assert.equal(await s.claimBoth(e, k, v(1), 'b'), 'in-flight');
    assert.equal(await s.o.claim(k, v(1), 'c'), 'claimed', 'the object was not taken');
    await s.o.release(k, 'c');
    await s.store.complete(e, 'a', HOUR);
    assert.equal(await s.claimBoth(e, k, v(1), 'd'), 'completed');
    assert.equal(await s.o.claim(k, v(1), 'c'), 'claimed', 'still not taken');
  });

  it('claimWithOrder: a stale event is recorded completed for retainMs, and the object is not taken', async () => {
    const s = await both(makeStore);
    if (s === undefined) return;
    const [e, k] = [event(), object()];
    await s.o.claim(k, v(5), 'a');
    await s.o.complete(k, v(5), 'a');
    assert.equal(await s.claimBoth(e, k, v(4), 'b', HOUR, 150), 'stale');
    assert.equal(await s.store.claim(e, 'c', HOUR), 'completed', 'a redelivery is a duplicate');
    assert.equal(await s.o.claim(k, v(6), 'c'), 'claimed', 'the object is free');
    await sleep(250);
    assert.equal(await s.store.claim(e, 'd', HOUR), 'claimed', 'its record is kept for retainMs only');
  });

  it('claimWithOrder: an object in flight leaves the event free for a later delivery', async () => {
    const s = await both(makeStore);
    if (s === undefined) return;
    const [e, k] = [event(), object()];
    assert.equal(await s.o.claim(k, v(1), 'a'), 'claimed');
    assert.equal(await s.claimBoth(e, k, v(2), 'b'), 'object-in-flight');
    assert.equal(await s.store.claim(e, 'c', HOUR), 'claimed', 'the event was not held');
    await s.store.release(e, 'c');
    await s.o.release(k, 'a');
    assert.equal(await s.claimBoth(e, k, v(2), 'd'), 'claimed');
  });
}

/** `completeWithOrder` in one step, and `claimWithOrder` under contention. */
function completeBothRows(makeStore: StoreFactory, { it }: TestApi): void {
  it('completeWithOrder: advances the version, frees the object and completes the event, in one step', async () => {
    const store = await makeStore();
    if (typeof store.completeWithOrder !== 'function') return;
    const o = ops(store);
    const [e, k] = [event(), object()];
    await store.claim(e, 'a', HOUR);
    await o.claim(k, v(7), 'a');
    assert.equal(await store.completeWithOrder(e, 'a', HOUR, { key: k, version: v(7) }), true);
    assert.equal(await store.claim(e, 'b', HOUR), 'completed');
    assert.equal(await o.claim(k, v(7), 'b'), 'stale');
    assert.equal(await o.claim(k, v(8), 'b'), 'claimed', 'the lease was freed');
    // Not the event's holder: false, and the event stays as it was; the version still advances.
    const [e2, k2] = [event(), object()];
    await store.claim(e2, 'c', HOUR);
    assert.equal(await store.completeWithOrder(e2, 'intruder', HOUR, { key: k2, version: v(3) }), false);
    assert.equal(await store.claim(e2, 'd', HOUR), 'in-flight');
    assert.equal(await o.claim(k2, v(2), 'd'), 'stale');
  });

  it('claimWithOrder: of many events of one object at once, exactly one is claimed', async () => {
    const s = await both(makeStore);
    if (s === undefined) return;
    const k = object();
    const events = Array.from({ length: 20 }, () => event());
    const results = await Promise.all(events.map((e, i) => s.claimBoth(e, k, v(100 + i), `t${i}`)));
    assert.equal(results.filter((r) => r === 'claimed').length, 1);
    assert.equal(results.filter((r) => r === 'object-in-flight').length, 19);
    // Only the winner's event is held: every other one can be claimed.
    const won = results.indexOf('claimed');
    for (const [i, e] of events.entries()) {
      assert.equal(await s.store.claim(e, 'again', HOUR), i === won ? 'in-flight' : 'claimed');
    }
    const e = event();
    const same = await Promise.all(
      Array.from({ length: 20 }, (_, i) => s.claimBoth(e, object(), v(1), `u${i}`)),
    );
    assert.equal(same.filter((r) => r === 'claimed').length, 1, 'one event, many objects');
    assert.equal(same.filter((r) => r === 'in-flight' || r === 'object-in-flight').length, 19);
  });
}
