import { describe, expect, it } from 'vitest';
import { InFlight } from '../src/receiver/pipeline.js';
import { VirtualClock } from '../src/testing/virtual-clock.js';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('InFlight', () => {
  it('counts runs until they settle, in any order', async () => {
    const runs = new InFlight();
    const [a, b, c] = [deferred(), deferred(), deferred()];
    runs.track('evt_a', a.promise);
    runs.track('evt_b', b.promise);
    runs.track('evt_c', c.promise);
    expect(runs.size).toBe(3);
    b.resolve();
    await b.promise;
    await Promise.resolve();
    expect(runs.size).toBe(2);
    c.resolve();
    a.resolve();
    await Promise.all([a.promise, c.promise]);
    await Promise.resolve();
    expect(runs.size).toBe(0);
  });

  it('a drain that times out names what still runs, oldest first; one that does not waits for the last', async () => {
    const clock = new VirtualClock();
    const runs = new InFlight(clock);
    const started = ['evt_1', 'evt_2', 'evt_3', 'evt_4'].map((id) => {
      const run = deferred();
      runs.track(id, run.promise);
      return run;
    });
    started[2]!.resolve();
    await started[2]!.promise;
    const timedOut = runs.drain(1000);
    await clock.advance(1000);
    expect(await timedOut).toEqual({ unfinished: ['evt_1', 'evt_2', 'evt_4'] });

    const idle = runs.drain();
    for (const i of [0, 3, 1]) started[i]!.resolve();
    expect(await idle).toEqual({ unfinished: [] });
  });
});
