import { durationMs, VirtualClock } from '@sms-webhooks/core/testing';

describe('VirtualClock', () => {
  it('fires due timers in due order (ties in the order set), with now() at each due time', async () => {
    const clock = new VirtualClock(1_000);
    const fired: [string, number][] = [];
    clock.setTimer(() => fired.push(['b', clock.now()]), 200);
    clock.setTimer(() => fired.push(['a', clock.now()]), 100);
    clock.setTimer(() => fired.push(['c', clock.now()]), 200);
    clock.setTimer(() => fired.push(['late', clock.now()]), 301);
    await clock.advance(300);
    expect(fired).toEqual([
      ['a', 1_100],
      ['b', 1_200],
      ['c', 1_200],
    ]);
    expect(clock.now()).toBe(1_300);
    expect(clock.pendingTimers).toBe(1);
    expect(clock.nextDue).toBe(1_301);
  });

  it('lets promise chains run between timers, so a timer set by one fires in the same advance', async () => {
    const clock = new VirtualClock(0);
    const times: number[] = [];
    const sleep = (ms: number) => new Promise<void>((resolve) => clock.setTimer(resolve, ms));
    void (async () => {
      for (let i = 0; i < 5; i++) {
        await sleep(60_000);
        await Promise.resolve();
        times.push(clock.now());
      }
    })();
    await clock.advance('3m');
    expect(times).toEqual([60_000, 120_000, 180_000]);
    await clock.runAll();
    expect(times).toEqual([60_000, 120_000, 180_000, 240_000, 300_000]);
  });

  it('waits for tracked work before the next timer and before it returns', async () => {
    const clock = new VirtualClock(0);
    const log: string[] = [];
    clock.setTimer(() => {
      // Real I/O the clock does not own: a timer of the real clock stands in for a socket.
      clock.track(
        new Promise<void>((resolve) =>
          setTimeout(() => {
            log.push('work done');
            clock.setTimer(() => log.push(`retry at ${clock.now()}`), 1_000);
            resolve();
          }, 20),
        ),
      );
    }, 1_000);
    await clock.advance(2_000);
    expect(log).toEqual(['work done', 'retry at 2000']);
  });

  it('cancels a timer; runAll refuses a timer that re-arms forever', async () => {
    const clock = new VirtualClock(0);
    let fired = false;
    const cancel = clock.setTimer(() => {
      fired = true;
    }, 10);
    cancel();
    await clock.advance(20);
    expect(fired).toBe(false);
    const rearm = () => clock.setTimer(rearm, 1);
    rearm();
    await expect(clock.runAll(50)).rejects.toThrow(/re-arms a timer forever/);
  });

  it('reads durations and refuses what is not one', () => {
    expect([durationMs(250), durationMs('250ms'), durationMs('30s'), durationMs('30m')]).toEqual([
      250, 250, 30_000, 1_800_000,
    ]);
    expect([durationMs('1h'), durationMs('2d'), durationMs('1.5h')]).toEqual([
      3_600_000, 172_800_000, 5_400_000,
    ]);
    // @ts-expect-error not a duration
    expect(() => durationMs('30 minutes')).toThrow(
      /a string like '250ms', '30s', '30m', '1h', '2d'; got "30 minutes"/,
    );
    expect(() => durationMs(-1)).toThrow(TypeError);
  });
});
