import { describe, expect, it } from 'vitest';
import { InFlight } from '../src/receiver/in-flight.js';
import { VirtualClock } from '../src/testing/virtual-clock.js';

describe('InFlight', () => {
  it('counts runs as they start and finish, in any order, and a second finish changes nothing', () => {
    const runs = new InFlight();
    const [a, b, c] = ['evt_a', 'evt_b', 'evt_c'].map((id) => runs.start(id, false));
    expect(runs.size).toBe(3);
    runs.finish(b!, undefined);
    runs.finish(b!, undefined);
    expect(runs.size).toBe(2);
    runs.finish(c!, undefined); // the newest
    runs.finish(a!, undefined); // the oldest, now the last
    runs.finish(a!, undefined);
    expect(runs.size).toBe(0);
    const d = runs.start('evt_d', false);
    expect(runs.size).toBe(1);
    runs.finish(d, undefined);
    expect(runs.size).toBe(0);
  });

  it('a drain that times out names what still runs, oldest first; one that does not waits for the last', async () => {
    const clock = new VirtualClock();
    const runs = new InFlight(clock);
    const started = ['evt_1', 'evt_2', 'evt_3', 'evt_4'].map((id) => runs.start(id, false));
    runs.finish(started[2]!, undefined);
    const timedOut = runs.drain(1000);
    await clock.advance(1000);
    expect(await timedOut).toEqual({ unfinished: ['evt_1', 'evt_2', 'evt_4'] });

    const idle = runs.drain();
    for (const run of [started[0]!, started[3]!, started[1]!]) runs.finish(run, undefined);
    expect(await idle).toEqual({ unfinished: [] });
  });

  it('hands the outcome to a run made with a promise (waitUntil)', async () => {
    const runs = new InFlight();
    const run = runs.start('evt_p', true);
    const failure = new Error('handler failed');
    runs.finish(run, failure);
    expect(await run.done).toBe(failure);
  });
});
