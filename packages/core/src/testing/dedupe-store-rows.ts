import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { HOUR, key, type StoreFactory } from './dedupe-store-kit.js';
import { sleep, type TestApi } from './test-api.js';

/** One claim at a time: claimed, in flight, completed, released, and who may complete or release it. */
export function claimRows(makeStore: StoreFactory, { it }: TestApi): void {
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
}

/** Time and many at once: leases and retentions run out, one of many concurrent claims wins, keys stay apart. */
export function leaseRows(makeStore: StoreFactory, { it }: TestApi): void {
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
}

/** Keys as applications send them: non-ASCII characters in their several forms, long ones, odd ones. */
export function keyRows(makeStore: StoreFactory, { it }: TestApi): void {
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
}
