import { randomBytes } from 'node:crypto';

/**
 * Where the emulator reads the time and sets its retry timers: core's `Clock` shape (`now`, `setTimer`),
 * so core's `VirtualClock` from `@sms-webhooks/core/testing` fits in a test. `track`, when the clock has
 * it, is handed each delivery attempt, so `VirtualClock.advance` waits for it before firing the next timer.
 */
export interface EmulatorClock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `fn` once after `ms` (a timer that does not keep the process alive); returns its cancel. */
  setTimer(fn: () => void, ms: number): () => void;
  /** Given each delivery attempt's promise, so a virtual clock can wait for it before firing the next timer. */
  track?(work: Promise<unknown>): void;
}

export const systemClock: EmulatorClock = Object.freeze({
  now: () => Date.now(),
  setTimer(fn: () => void, ms: number): () => void {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
});

/** `evt_…`, `wh_…`: the prefix and 24 random hex digits, as core's test deliveries make them. */
export function randomId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}
