import assert from 'node:assert/strict';
import type { DedupeStore } from '../receiver/dedupe-store.js';
import { HOUR, key, type StoreFactory } from './dedupe-store-kit.js';
import { sleep, type TestApi } from './test-api.js';

function renewOf(store: DedupeStore): NonNullable<DedupeStore['renew']> {
  assert.equal(
    typeof store.renew,
    'function',
    'the store has no renew(): a handler that runs longer than leaseMs can then run twice. Implement ' +
      'renew, or pass { renew: false } to runDedupeStoreContract to say it is left out on purpose.',
  );
  return store.renew!.bind(store);
}

/** The one row for a store left without `renew` on purpose (`{ renew: false }`): it indeed has none. */
export function noRenewRows(makeStore: StoreFactory, { it }: TestApi): void {
  it('has no renew, as { renew: false } declares', async () => {
    const store = await makeStore();
    assert.equal(store.renew, undefined, 'the store has renew(): drop { renew: false } so it is checked');
  });
}

/** `renew` by the owner: the claim outlives its first lease, and the new lease runs out as any other. */
export function renewRows(makeStore: StoreFactory, { it }: TestApi): void {
  it('renew keeps the owner’s claim past its first lease; complete still works', async () => {
    const store = await makeStore();
    const renew = renewOf(store);
    const k = key();
    await store.claim(k, 'a', 100);
    assert.equal(await renew(k, 'a', HOUR), true);
    await sleep(200);
    assert.equal(await store.claim(k, 'b', HOUR), 'in-flight', 'the renewed claim outlives its first lease');
    assert.equal(await store.complete(k, 'a', HOUR), true);
    assert.equal(await store.claim(k, 'b', HOUR), 'completed');
  });

  it('renew sets the lease to leaseMs from now, then it runs out as any lease', async () => {
    const store = await makeStore();
    const renew = renewOf(store);
    const k = key();
    await store.claim(k, 'a', HOUR);
    assert.equal(await renew(k, 'a', 60), true);
    await sleep(120);
    assert.equal(await store.claim(k, 'b', HOUR), 'claimed');
    assert.equal(await renew(k, 'a', HOUR), false, 'the old owner cannot take it back');
    assert.equal(await store.complete(k, 'a', HOUR), false);
    assert.equal(await store.complete(k, 'b', HOUR), true);
  });
}

/** `renew` refused: by another token, of a key never claimed, or of a claim that is no longer held. */
export function renewRefusalRows(makeStore: StoreFactory, { it }: TestApi): void {
  it('renew by another token, or of a key never claimed, is false and changes nothing', async () => {
    const store = await makeStore();
    const renew = renewOf(store);
    const k = key();
    await store.claim(k, 'a', 60);
    assert.equal(await renew(k, 'b', HOUR), false);
    await sleep(120);
    assert.equal(await store.claim(k, 'c', HOUR), 'claimed', 'the foreign renew did not extend the lease');
    const never = key();
    assert.equal(await renew(never, 'a', HOUR), false);
    assert.equal(await store.claim(never, 'a', HOUR), 'claimed', 'renew created nothing');
  });

  it('renew cannot revive a released, expired or completed claim', async () => {
    const store = await makeStore();
    const renew = renewOf(store);
    const released = key();
    await store.claim(released, 'a', HOUR);
    await store.release(released, 'a');
    assert.equal(await renew(released, 'a', HOUR), false);
    assert.equal(await store.claim(released, 'b', HOUR), 'claimed');

    const expired = key();
    await store.claim(expired, 'a', 60);
    await sleep(120);
    assert.equal(await renew(expired, 'a', HOUR), false);
    assert.equal(await store.claim(expired, 'b', HOUR), 'claimed');

    const completed = key();
    await store.claim(completed, 'a', HOUR);
    await store.complete(completed, 'a', HOUR);
    assert.equal(await renew(completed, 'a', 60), false);
    await sleep(120);
    assert.equal(await store.claim(completed, 'b', HOUR), 'completed', 'the retention is unchanged');
  });
}
