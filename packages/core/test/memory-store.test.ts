import { MemoryStore } from '@sms-webhooks/core';
import { runDedupeStoreContract } from '@sms-webhooks/core/testing';
import { describe, expect, it } from 'vitest';

runDedupeStoreContract('MemoryStore', () => new MemoryStore());

describe('MemoryStore', () => {
  it('is a per-process store', () => {
    expect(new MemoryStore().localKeys).toBe(true);
  });

  it('answers synchronously, so the receiver pays no extra tick for it', () => {
    const store = new MemoryStore();
    expect(store.claim('evt_a', 't', 1000)).toBe('claimed');
    expect(store.complete('evt_a', 't', 1000)).toBe(true);
  });

  it('evicts the oldest completed record when full', () => {
    const store = new MemoryStore({ maxEntries: 3 });
    for (const k of ['a', 'b', 'c', 'd']) {
      store.claim(k, 't', 1000);
      store.complete(k, 't', 60_000);
    }
    expect(store.size).toBe(3);
    expect(store.claim('a', 'u', 1000)).toBe('claimed');
    for (const k of ['b', 'c', 'd']) expect(store.claim(k, 'u', 1000)).toBe('completed');
  });

  it('uses its clock for leases and retention, and drops expired records as new ones arrive', () => {
    let now = 1_000_000;
    const store = new MemoryStore({ now: () => now });
    store.claim('old', 't', 100);
    store.complete('old', 't', 500);
    now += 499;
    expect(store.claim('old', 'u', 100)).toBe('completed');
    now += 1;
    store.claim('new', 't', 100);
    store.complete('new', 't', 500);
    expect(store.size).toBe(1);
    expect(store.claim('old', 'u', 100)).toBe('claimed');
  });

  it('frees leases by its clock', () => {
    let now = 0;
    const store = new MemoryStore({ now: () => now });
    store.claim('k', 'a', 100);
    now = 99;
    expect(store.claim('k', 'b', 100)).toBe('in-flight');
    now = 100;
    expect(store.claim('k', 'b', 100)).toBe('claimed');
    expect(store.complete('k', 'a', 100)).toBe(false);
  });

  it('sweeps expired claims rather than growing without bound', () => {
    let now = 0;
    const store = new MemoryStore({ maxEntries: 10, now: () => now });
    for (let i = 0; i < 10; i++) store.claim(`k${i}`, 't', 10);
    now = 20;
    store.claim('fresh', 't', 10);
    // The sweep dropped the ten dead claims: their late owners cannot complete them.
    for (let i = 0; i < 10; i++) expect(store.complete(`k${i}`, 't', 10)).toBe(false);
    expect(store.complete('fresh', 't', 10)).toBe(true);
  });

  it('rejects a bad maxEntries with a message that says what to pass', () => {
    expect(() => new MemoryStore({ maxEntries: 0 })).toThrow(/maxEntries must be a positive integer/);
  });

  it('starts no timer, so it never keeps the process alive', async () => {
    const { spawnSync } = await import('node:child_process');
    const script = `
      const { MemoryStore } = await import(${JSON.stringify(new URL('../src/memory-store.ts', import.meta.url).pathname)});
      const s = new MemoryStore();
      s.claim('a', 't', 60000); s.complete('a', 't', 60000);
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
