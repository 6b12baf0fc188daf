import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { DedupeStore } from '../dedupe-store.js';
import { resolveTestApi, sleep, type TestApi } from './test-api.js';

export type StoreFactory = () => DedupeStore | Promise<DedupeStore>;

const key = () => `evt_contract_${randomBytes(8).toString('hex')}`;
const HOUR = 3_600_000;

/**
 * The behaviour every DedupeStore must have. Run it against your own store:
 * `runDedupeStoreContract('PostgresStore', () => new PostgresStore(pool))`.
 */
export function runDedupeStoreContract(name: string, makeStore: StoreFactory, api?: Partial<TestApi>): void {
  const { describe, it } = resolveTestApi(api);

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

    it('accepts long and unusual keys', async () => {
      const store = await makeStore();
      const long = `evt_${'x'.repeat(2000)}`;
      const odd = `evt_{slot}:*?[] ünïcødé ${randomBytes(4).toString('hex')}`;
      for (const k of [long, odd]) {
        assert.equal(await store.claim(k, 'a', HOUR), 'claimed');
        assert.equal(await store.complete(k, 'a', HOUR), true);
        assert.equal(await store.claim(k, 'b', HOUR), 'completed');
      }
    });
  });
}
