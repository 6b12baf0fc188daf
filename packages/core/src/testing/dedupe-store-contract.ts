import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { DedupeStore } from '../receiver/dedupe-store.js';
import { inspectContract } from './inspect-contract.js';
import { claimWithOrderContract, orderContract, orderRuleContract } from './order-contract.js';
import { resolveTestApi, sleep, type TestApi } from './test-api.js';

/** Makes a fresh, empty store for each row of the contract (its own key prefix, table or database). */
export type StoreFactory = () => DedupeStore | Promise<DedupeStore>;

/** Options of {@link runDedupeStoreContract}; `describe` and `it` default to the runner's globals. */
export interface DedupeStoreContractOptions extends Partial<TestApi> {
  /** The runner's `describe`; default the global one. */
  describe?: TestApi['describe'];
  /** The runner's `it`; default the global one. */
  it?: TestApi['it'];
  /**
   * Whether the store implements `renew`. Default true: the renew rows check it, and fail for a store
   * without it (slow handlers would run twice). `false` says the store has no `renew` on purpose: one row
   * then checks that it indeed has none, and the others do not run.
   */
  renew?: boolean;
  /**
   * `true` runs the rows of the order methods too (`claimOrder`, `completeOrder`, `releaseOrder`,
   * `renewOrder`, and the optional `claimWithOrder` when the store has it), which the receiver's `order`
   * option needs. Default false: not every store keeps versions.
   */
  order?: boolean;
}

const key = () => `evt_contract_${randomBytes(8).toString('hex')}`;
const HOUR = 3_600_000;

function renewOf(store: DedupeStore): NonNullable<DedupeStore['renew']> {
  assert.equal(
    typeof store.renew,
    'function',
    'the store has no renew(): a handler that runs longer than leaseMs can then run twice. Implement ' +
      'renew, or pass { renew: false } to runDedupeStoreContract to say it is left out on purpose.',
  );
  return store.renew!.bind(store);
}

/**
 * The behaviour every DedupeStore must have. Run it against your own store:
 * `runDedupeStoreContract('PostgresStore', () => new PostgresStore(pool))`.
 */
export function runDedupeStoreContract(
  name: string,
  makeStore: StoreFactory,
  options?: DedupeStoreContractOptions,
): void {
  const api = resolveTestApi(options);
  const { describe, it } = api;

  describe(`DedupeStore contract: ${name}`, () => {
    it('declares localKeys as a boolean', async () => {
      const store = await makeStore();
      assert.equal(typeof store.localKeys, 'boolean');
    });

    it('claims a free key, then reports it in flight to other tokens', async () => {
      const store = await makeStore();
      const k = key();
      assert.equal(await store.claim(k, 'a', HOUR), 'claimed');
      assert.equal(await store.claim(k, 'b', HOUR), 'in-flight');
      assert.equal(await store.claim(k, 'a', HOUR), 'in-flight');
    });

    it('completes with the owner token, then reports the key completed', async () => {
      const store = await makeStore();
      const k = key();
      await store.claim(k, 'a', HOUR);
      assert.equal(await store.complete(k, 'a', HOUR), true);
      assert.equal(await store.claim(k, 'b', HOUR), 'completed');
    });

    it('refuses complete and release by another token and changes nothing', async () => {
      const store = await makeStore();
      const k = key();
      await store.claim(k, 'a', HOUR);
      assert.equal(await store.complete(k, 'b', HOUR), false);
      assert.equal(await store.release(k, 'b'), false);
      assert.equal(await store.claim(k, 'c', HOUR), 'in-flight');
      assert.equal(await store.complete(k, 'a', HOUR), true);
    });

    it('releases with the owner token so the key can be claimed again', async () => {
      const store = await makeStore();
      const k = key();
      await store.claim(k, 'a', HOUR);
      assert.equal(await store.release(k, 'a'), true);
      assert.equal(await store.complete(k, 'a', HOUR), false, 'a released claim cannot be completed');
      assert.equal(await store.claim(k, 'b', HOUR), 'claimed');
    });

    it('refuses complete and release of a key never claimed', async () => {
      const store = await makeStore();
      assert.equal(await store.complete(key(), 'a', HOUR), false);
      assert.equal(await store.release(key(), 'a'), false);
    });

    it('cannot release or re-complete a completed key', async () => {
      const store = await makeStore();
      const k = key();
      await store.claim(k, 'a', HOUR);
      await store.complete(k, 'a', HOUR);
      assert.equal(await store.release(k, 'a'), false);
      assert.equal(await store.complete(k, 'a', HOUR), false);
      assert.equal(await store.claim(k, 'b', HOUR), 'completed');
    });

    it('frees a claim whose lease ran out; the late owner can no longer complete it', async () => {
      const store = await makeStore();
      const k = key();
      assert.equal(await store.claim(k, 'dead', 60), 'claimed');
      await sleep(120);
      assert.equal(await store.claim(k, 'next', HOUR), 'claimed');
      assert.equal(await store.complete(k, 'dead', HOUR), false);
      assert.equal(await store.release(k, 'dead'), false);
      assert.equal(await store.claim(k, 'other', HOUR), 'in-flight');
      assert.equal(await store.complete(k, 'next', HOUR), true);
    });

    it('a late complete after the lease ran out changes nothing', async () => {
      const store = await makeStore();
      const k = key();
      await store.claim(k, 'slow', 60);
      await sleep(120);
      assert.equal(await store.complete(k, 'slow', HOUR), false);
      assert.equal(await store.claim(k, 'retry', HOUR), 'claimed');
    });

    it('forgets a completed key after its retention', async () => {
      const store = await makeStore();
      const k = key();
      await store.claim(k, 'a', HOUR);
      await store.complete(k, 'a', 60);
      assert.equal(await store.claim(k, 'b', HOUR), 'completed');
      await sleep(120);
      assert.equal(await store.claim(k, 'b', HOUR), 'claimed');
    });

    it('grants exactly one of many concurrent claims of one key', async () => {
      const store = await makeStore();
      const k = key();
      const results = await Promise.all(Array.from({ length: 25 }, (_, i) => store.claim(k, `t${i}`, HOUR)));
      assert.equal(results.filter((r) => r === 'claimed').length, 1);
      assert.equal(results.filter((r) => r === 'in-flight').length, 24);
    });

    it('keeps keys independent', async () => {
      const store = await makeStore();
      const [k1, k2] = [key(), key()];
      await store.claim(k1, 'a', HOUR);
      await store.complete(k1, 'a', HOUR);
      assert.equal(await store.claim(k2, 'a', HOUR), 'claimed');
    });

    if (options?.renew === false) {
      it('has no renew, as { renew: false } declares', async () => {
        const store = await makeStore();
        assert.equal(store.renew, undefined, 'the store has renew(): drop { renew: false } so it is checked');
      });
    } else {
      it('renew keeps the owner’s claim past its first lease; complete still works', async () => {
        const store = await makeStore();
        const renew = renewOf(store);
        const k = key();
        await store.claim(k, 'a', 100);
        assert.equal(await renew(k, 'a', HOUR), true);
        await sleep(200);
        assert.equal(
          await store.claim(k, 'b', HOUR),
          'in-flight',
          'the renewed claim outlives its first lease',
        );
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

      it('renew by another token, or of a key never claimed, is false and changes nothing', async () => {
        const store = await makeStore();
        const renew = renewOf(store);
        const k = key();
        await store.claim(k, 'a', 60);
        assert.equal(await renew(k, 'b', HOUR), false);
        await sleep(120);
        assert.equal(
          await store.claim(k, 'c', HOUR),
          'claimed',
          'the foreign renew did not extend the lease',
        );
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

    it('keeps keys apart that differ only in non-ASCII characters', async () => {
      const store = await makeStore();
      const tag = randomBytes(4).toString('hex');
      // NFC and NFD forms, U+FFFD (what a lossy UTF-8 encoder writes for a lone surrogate), astral characters.
      const keys = ['\u00e9', 'e\u0301', '\ufffd', '\u{1F600}', '\u{1F601}', '\u{1F600}\u{1F600}'].map(
        (s) => `evt_${tag}_${s}`,
      );
      for (const k of keys) assert.equal(await store.claim(k, 'a', HOUR), 'claimed', `first claim of ${k}`);
      for (const k of keys) assert.equal(await store.complete(k, 'a', HOUR), true);
      for (const k of keys) assert.equal(await store.claim(k, 'b', HOUR), 'completed');
    });

    it('accepts long and unusual keys', async () => {
      const store = await makeStore();
      // Random, as every key here: a store kept between runs (a database, a Redis) still has the last run's.
      const long = `evt_${randomBytes(4).toString('hex')}_${'x'.repeat(2000)}`;
      const odd = `evt_{slot}:*?[] ünïcødé ${randomBytes(4).toString('hex')}`;
      for (const k of [long, odd]) {
        assert.equal(await store.claim(k, 'a', HOUR), 'claimed');
        assert.equal(await store.complete(k, 'a', HOUR), true);
        assert.equal(await store.claim(k, 'b', HOUR), 'completed');
      }
    });
    inspectContract(name, makeStore, api);
    if (options?.order === true) {
      orderContract(makeStore, api);
      claimWithOrderContract(makeStore, api);
      orderRuleContract(makeStore, api);
    }
  });
}
