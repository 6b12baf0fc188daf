import { MemoryStore } from '@sms-webhooks/core';
import { runDedupeStoreContract } from '@sms-webhooks/core/testing';
import { describe, expect, it } from 'vitest';
import { captureLogger } from './helpers.js';

runDedupeStoreContract('MemoryStore', () => new MemoryStore(), { order: true });

// A database or a Redis keeps what the last run of the contract wrote: a second run against the same
// store must pass too.
const kept = new MemoryStore();
runDedupeStoreContract('MemoryStore kept between runs (first run)', () => kept);
runDedupeStoreContract('MemoryStore kept between runs (second run)', () => kept);

describe('MemoryStore', () => {
  it('is a per-process store', async () => {
    expect(new MemoryStore().localKeys).toBe(true);
  });

  it('evicts the oldest completed record when full', async () => {
    const store = new MemoryStore({ maxEntries: 3 });
    for (const k of ['a', 'b', 'c', 'd']) {
      await store.claim(k, 't', 1000);
      await store.complete(k, 't', 60_000);
    }
    expect(store.size).toBe(3);
    expect(await store.claim('a', 'u', 1000)).toBe('claimed');
    for (const k of ['b', 'c', 'd']) expect(await store.claim(k, 'u', 1000)).toBe('completed');
  });

  it('uses its clock for leases and retention, and drops expired records as new ones arrive', async () => {
    let now = 1_000_000;
    const store = new MemoryStore({ now: () => now });
    await store.claim('old', 't', 100);
    await store.complete('old', 't', 500);
    now += 499;
    expect(await store.claim('old', 'u', 100)).toBe('completed');
    now += 1;
    await store.claim('new', 't', 100);
    await store.complete('new', 't', 500);
    expect(store.size).toBe(1);
    expect(await store.claim('old', 'u', 100)).toBe('claimed');
  });

  it('frees leases by its clock', async () => {
    let now = 0;
    const store = new MemoryStore({ now: () => now });
    await store.claim('k', 'a', 100);
    now = 99;
    expect(await store.claim('k', 'b', 100)).toBe('in-flight');
    now = 100;
    expect(await store.claim('k', 'b', 100)).toBe('claimed');
    expect(await store.complete('k', 'a', 100)).toBe(false);
  });

  it('sweeps expired claims rather than growing without bound', async () => {
    let now = 0;
    const store = new MemoryStore({ maxEntries: 10, now: () => now });
    for (let i = 0; i < 10; i++) await store.claim(`k${i}`, 't', 10);
    now = 20;
    await store.claim('fresh', 't', 10);
    // The sweep dropped the ten dead claims: their late owners cannot complete them.
    for (let i = 0; i < 10; i++) expect(await store.complete(`k${i}`, 't', 10)).toBe(false);
    expect(await store.complete('fresh', 't', 10)).toBe(true);
  });

  it('renews a live claim by its clock, to leaseMs from now', async () => {
    let now = 0;
    const store = new MemoryStore({ now: () => now });
    await store.claim('k', 'a', 100);
    now = 90;
    expect(await store.renew('k', 'a', 100)).toBe(true);
    now = 189;
    expect(await store.claim('k', 'b', 100)).toBe('in-flight');
    expect(await store.renew('k', 'b', 100)).toBe(false);
    now = 190;
    expect(await store.renew('k', 'a', 100)).toBe(false); // ran out exactly now
    expect(await store.claim('k', 'b', 100)).toBe('claimed');
  });

  it('warns once, through its logger, when full and a record younger than the retry schedule goes', async () => {
    let now = 0;
    const logger = captureLogger();
    const store = new MemoryStore({ maxEntries: 2, logger, now: () => now });
    const done = async (k: string) => {
      await store.claim(k, 't', 1000);
      await store.complete(k, 't', 24 * 3_600_000);
    };
    await done('evt_a');
    await done('evt_b');
    expect(logger.lines).toEqual([]);
    now = 3 * 60_000;
    await done('evt_c'); // evt_a goes, 3 minutes old
    await done('evt_d'); // evt_b goes too: no second line
    await done('evt_e');
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]).toMatch(
      /^warn sms-webhooks: MemoryStore is full \(maxEntries 2\) and forgot evt_a/,
    );
    expect(logger.lines[0]).toContain('completed 3 min ago');
    expect(logger.lines[0]).toContain('RedisStore');
  });

  it('does not warn when the record it drops is older than the retry schedule, or already expired', async () => {
    let now = 0;
    const logger = captureLogger();
    const store = new MemoryStore({ maxEntries: 1, logger, now: () => now });
    await store.claim('evt_old', 't', 1000);
    await store.complete('evt_old', 't', 24 * 3_600_000);
    now = (14 * 60 + 36) * 60_000; // 14 h 36 min: the whole schedule has passed
    await store.claim('evt_new', 't', 1000);
    await store.complete('evt_new', 't', 1000);
    now += 2000; // evt_new has expired, but is still held until something pushes it out
    await store.claim('evt_next', 't', 1000);
    await store.complete('evt_next', 't', 1000);
    expect(logger.lines).toEqual([]);
  });

  it('a throwing logger does not fail the completion that made room', async () => {
    const logger = {
      warn() {
        throw new Error('logger down');
      },
      error() {},
    };
    const store = new MemoryStore({ maxEntries: 1, logger });
    await store.claim('evt_a', 't', 1000);
    await store.complete('evt_a', 't', 60_000);
    await store.claim('evt_b', 't', 1000);
    expect(await store.complete('evt_b', 't', 60_000)).toBe(true);
    expect(await store.claim('evt_b', 'u', 1000)).toBe('completed');
  });

  it('rejects a bad maxEntries with a message that says what to pass', async () => {
    expect(() => new MemoryStore({ maxEntries: 0 })).toThrow(
      /MemoryStore: `maxEntries` must be a positive integer, got 0\./,
    );
  });

  it('starts no timer, so it never keeps the process alive', async () => {
    const { spawnSync } = await import('node:child_process');
    const script = `
      const { MemoryStore } = await import(${JSON.stringify(new URL('../src/receiver/memory-store.ts', import.meta.url).pathname)});
      const s = new MemoryStore();
      await s.claim('a', 't', 60000); await s.complete('a', 't', 60000);
      console.log(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length);
    `;
    const out = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(out.stderr).toBe('');
    expect(out.stdout.trim()).toBe('0');
    expect(out.status).toBe(0);
  });
});
