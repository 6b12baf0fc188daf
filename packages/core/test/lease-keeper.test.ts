import { describe, expect, it } from 'vitest';
import type { DedupeStore } from '../src/receiver/dedupe-store.js';
import { LeaseKeeper } from '../src/receiver/lease-keeper.js';
import { MemoryStore } from '../src/receiver/memory-store.js';
import { VirtualClock } from '../src/testing/virtual-clock.js';
import { captureLogger } from './helpers.js';

/** A store whose renew records each call and answers what `renewed` says for the key. */
function recordingStore(renewed: (key: string) => boolean = () => true) {
  const calls: string[] = [];
  const store: DedupeStore = Object.assign(new MemoryStore(), {
    renew: async (key: string) => {
      calls.push(key);
      return renewed(key);
    },
  });
  return { store, calls };
}

// On a VirtualClock: each renewal falls due exactly a third of the lease after the last.
describe('LeaseKeeper', () => {
  it('renews every claim taken before a tick, oldest first, until it is released', async () => {
    const clock = new VirtualClock(0);
    const { store, calls } = recordingStore();
    const keeper = new LeaseKeeper(store, 300, captureLogger(), clock);
    const a = keeper.hold('a', 'ta');
    const b = keeper.hold('b', 'tb');
    keeper.hold('c', 'tc');
    await clock.advance(100);
    expect(calls).toEqual(['a', 'b', 'c']);
    keeper.hold('d', 'td'); // taken after that tick: renewed from the next one on
    keeper.release(b);
    keeper.release(b);
    await clock.advance(100);
    expect(calls).toEqual(['a', 'b', 'c', 'a', 'c', 'd']);
    keeper.release(a);
    await clock.advance(100);
    expect(calls.slice(6)).toEqual(['c', 'd']);
  });

  it('logs a claim that could not be renewed once, and stops renewing it', async () => {
    const clock = new VirtualClock(0);
    const { store, calls } = recordingStore((key) => key !== 'lost');
    const logger = captureLogger();
    const keeper = new LeaseKeeper(store, 300, logger, clock);
    keeper.hold('kept', 't1');
    const lost = keeper.hold('lost', 't2');
    await clock.advance(200);
    expect(calls).toEqual(['kept', 'lost', 'kept']);
    expect(logger.lines).toHaveLength(1);
    expect(logger.text()).toMatch(/the claim on lost ran out while its handlers ran/);
    keeper.release(lost);
    await clock.advance(100);
    expect(calls).toEqual(['kept', 'lost', 'kept', 'kept']);
    expect(logger.lines).toHaveLength(1);
  });

  it('stops its timer once nothing is held, and holds nothing for a store without renew', async () => {
    const clock = new VirtualClock(0);
    const { store, calls } = recordingStore();
    const keeper = new LeaseKeeper(store, 300, captureLogger(), clock);
    keeper.release(keeper.hold('a', 'ta'));
    await clock.advance(100);
    expect(clock.pendingTimers).toBe(0);
    expect(calls).toEqual([]);
    const withoutRenew: DedupeStore = {
      localKeys: true,
      claim: async () => 'claimed',
      complete: async () => true,
      release: async () => true,
    };
    const plain = new LeaseKeeper(withoutRenew, 300, captureLogger(), clock);
    expect(plain.hold('a', 'ta')).toBeUndefined();
    expect(clock.pendingTimers).toBe(0);
  });
});
