import assert from 'node:assert/strict';
import type { DedupeStore } from '../receiver/dedupe-store.js';
import { HOUR } from './dedupe-store-kit.js';
import { object, ops, v } from './order-kit.js';
import { sleep, type TestApi } from './test-api.js';

type Store = DedupeStore;

/** The rows of the order methods (the receiver's `order` option), part of `runDedupeStoreContract`. */
export function orderContract(makeStore: () => Store | Promise<Store>, { it }: TestApi): void {
  it('order: claims a free object, reports it in flight to other tokens, not to its holder', async () => {
    const o = ops(await makeStore());
    const k = object();
    assert.equal(await o.claim(k, v(1), 'a'), 'claimed');
    assert.equal(await o.claim(k, v(2), 'b'), 'in-flight');
    assert.equal(await o.claim(k, v(1), 'a'), 'claimed');
  });

  it('order: a completed version makes older and equal versions stale, newer ones claimable', async () => {
    const o = ops(await makeStore());
    const k = object();
    await o.claim(k, v(5), 'a');
    assert.equal(await o.complete(k, v(5), 'a'), true);
    assert.equal(await o.claim(k, v(4), 'b'), 'stale');
    assert.equal(await o.claim(k, v(5), 'b'), 'stale');
    assert.equal(await o.claim(k, v(5, 'evt_b'), 'b'), 'claimed', 'same instant, later id: newer');
  });

  it('order: the completed version never goes back, whoever completes', async () => {
    const o = ops(await makeStore());
    const k = object();
    await o.claim(k, v(9), 'a');
    await o.complete(k, v(9), 'a');
    assert.equal(await o.complete(k, v(3), 'late'), false, 'not the holder');
    assert.equal(await o.claim(k, v(8), 'b'), 'stale');
    assert.equal(await o.complete(k, v(12), 'other'), false, 'advances even without the lease');
    assert.equal(await o.claim(k, v(11), 'c'), 'stale');
  });

  it('order: release frees the lease and keeps the version', async () => {
    const o = ops(await makeStore());
    const k = object();
    await o.claim(k, v(2), 'a');
    await o.complete(k, v(2), 'a');
    assert.equal(await o.claim(k, v(3), 'b'), 'claimed');
    assert.equal(await o.release(k, 'c'), false, 'another token');
    assert.equal(await o.release(k, 'b'), true);
    assert.equal(await o.claim(k, v(1), 'd'), 'stale');
    assert.equal(await o.claim(k, v(3), 'd'), 'claimed');
  });

  it('order: a lease that ran out frees the object; renew keeps it', async () => {
    const o = ops(await makeStore());
    const k = object();
    assert.equal(await o.claim(k, v(1), 'dead', 60), 'claimed');
    await sleep(120);
    assert.equal(await o.claim(k, v(2), 'next', 300), 'claimed');
    assert.equal(await o.renew(k, 'dead', HOUR), false);
    assert.equal(await o.renew(k, 'next', HOUR), true);
    await sleep(400);
    assert.equal(await o.claim(k, v(3), 'other'), 'in-flight', 'renewed past its first lease');
    assert.equal(await o.complete(k, v(2), 'next'), true);
  });

  it('order: grants exactly one of many concurrent claims of one object', async () => {
    const o = ops(await makeStore());
    const k = object();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => o.claim(k, v(100 + i), `t${i}`)));
    assert.equal(results.filter((r) => r === 'claimed').length, 1);
    assert.equal(results.filter((r) => r === 'in-flight').length, 19);
  });

  it('order: compares versions bytewise, and keeps objects apart', async () => {
    const o = ops(await makeStore());
    const k1 = object();
    const k2 = `${k1}_\u00e9`;
    await o.claim(k1, v(10, 'evt_b'), 'a');
    await o.complete(k1, v(10, 'evt_b'), 'a');
    assert.equal(await o.claim(k1, v(10, 'evt_a'), 'x'), 'stale');
    assert.equal(await o.claim(k1, v(10, 'evt_ba'), 'x'), 'claimed');
    assert.equal(await o.claim(k2, v(1), 'y'), 'claimed', 'another object');
  });
}
