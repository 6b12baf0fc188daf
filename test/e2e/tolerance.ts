import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { AttemptReport } from '@sms-webhooks/emulator';
import { expect } from 'vitest';

/**
 * Timer tolerance for the scaled retry schedule: a wait never ends early (1 ms of clock rounding, plus
 * 1 ms for timestamps taken in different places) and may end late by up to LATE_MS on a loaded
 * two-core CI machine.
 */
export const EARLY_MS = 2;
export const LATE_MS = 250;

/** The spec's first two waits (1 min, 5 min) at `timeScale`, in ms. */
export function scaledWaits(timeScale: number): [number, number] {
  return [60_000 * timeScale, 300_000 * timeScale];
}

/**
 * Watches this process's event loop. A retry timer fires late only when the loop is held up as it falls
 * due (a machine at load 10-30 starves the process for hundreds of ms at a time), and the loop's longest
 * hold-up, `stop()`'s answer in ms, bounds how late that can be.
 */
export function watchEventLoop(): { stop(): number } {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  return {
    stop() {
      histogram.disable();
      return histogram.max / 1e6;
    },
  };
}

/**
 * The emulator's own reports of consecutive attempts against `waits`: each failed attempt schedules the
 * next `wait` after it ended (to the clock's ms), and the next one starts no earlier than that and at
 * most LATE_MS plus the event loop's longest hold-up (`stallMs`) later. Timed by the sender, so a slow
 * HTTP exchange on a loaded machine does not count as a late retry.
 */
export function expectOnSchedule(
  reports: readonly AttemptReport[],
  waits: readonly number[],
  stallMs: number,
) {
  waits.forEach((wait, i) => {
    const done = reports[i]!;
    const next = reports[i + 1]!;
    const ended = done.startedAt + done.durationMs;
    expect(done.nextAttemptAt, `attempt ${i + 1} scheduled the next`).not.toBeNull();
    expect(
      Math.abs(done.nextAttemptAt! - ended - wait),
      `attempt ${i + 2} due ${wait} ms after attempt ${i + 1}`,
    ).toBeLessThanOrEqual(EARLY_MS);
    const late = next.startedAt - done.nextAttemptAt!;
    expect(late, `attempt ${i + 2} started before it was due`).toBeGreaterThanOrEqual(-EARLY_MS);
    expect(
      late,
      `attempt ${i + 2} started late (longest event-loop hold-up ${Math.round(stallMs)} ms)`,
    ).toBeLessThanOrEqual(LATE_MS + stallMs);
  });
}
