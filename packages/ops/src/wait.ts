import { optionMistake } from './errors.js';

/**
 * Where the waits take their time: epoch ms and a timer that can be cancelled. VirtualClock from
 * `@sms-webhooks/core/testing` is one (tests move it on); the default keeps the process alive.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `fn` once after `ms`; returns a function that cancels it. */
  setTimer(fn: () => void, ms: number): () => void;
}

/** A wait on the clock (a VirtualClock in tests); rejects when `signal` aborts. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      cancel();
      reject(signal!.reason);
    };
    const cancel = clock.setTimer(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Core's systemClock unrefs its timers (a receiver must not keep a process alive); a wait here is the
 * work a job or a CLI is doing, so its timer must keep the process running until it fires.
 */
const waitingClock: Clock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  },
};

export function clockOption(clock: unknown): Clock {
  if (clock === undefined) return waitingClock;
  const c = clock as Partial<Clock> | null;
  if (typeof c?.now !== 'function' || typeof c.setTimer !== 'function') {
    throw optionMistake(
      '`clock` must have now() and setTimer(fn, ms), like VirtualClock from @sms-webhooks/core/testing.',
    );
  }
  return c as Clock;
}
