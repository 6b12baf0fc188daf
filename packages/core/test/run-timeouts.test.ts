import { VirtualClock } from '@sms-webhooks/core/testing';
import { describe, expect, it } from 'vitest';
import { RunTimeouts } from '../src/receiver/run-timeouts.js';

describe('RunTimeouts: one timer for every handler run', () => {
  it('times each run out exactly its length after it started, in start order', async () => {
    const clock = new VirtualClock(0);
    const timeouts = new RunTimeouts(1_000, clock);
    const out: string[] = [];
    timeouts.start(() => out.push('a'));
    await clock.advance(300);
    timeouts.start(() => out.push('b'));
    await clock.advance(699);
    expect(out).toEqual([]);
    await clock.advance(1);
    expect(out).toEqual(['a']);
    await clock.advance(299);
    expect(out).toEqual(['a']);
    await clock.advance(1);
    expect(out).toEqual(['a', 'b']);
    expect(clock.pendingTimers).toBe(0);
  });

  it('never times out a stopped run, and keeps one timer however many runs start', async () => {
    const clock = new VirtualClock(0);
    const timeouts = new RunTimeouts(1_000, clock);
    const out: number[] = [];
    const runs = Array.from({ length: 50 }, (_, i) => timeouts.start(() => out.push(i)));
    expect(clock.pendingTimers).toBe(1);
    for (const run of runs.slice(0, 49)) timeouts.stop(run);
    await clock.advance(1_000);
    expect(out).toEqual([49]);
    // A run that started after the oldest one stopped is timed from its own start, not the oldest's.
    const first = timeouts.start(() => out.push(100));
    await clock.advance(500);
    timeouts.stop(first);
    timeouts.start(() => out.push(101));
    await clock.advance(500);
    expect(out).toEqual([49]);
    await clock.advance(500);
    expect(out).toEqual([49, 101]);
    expect(clock.pendingTimers).toBe(0);
  });
});
