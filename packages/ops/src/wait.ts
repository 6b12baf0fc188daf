import { type Clock, systemClock } from '@sms-webhooks/core';
import { optionMistake } from './errors.js';

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

export function clockOption(clock: unknown): Clock {
  if (clock === undefined) return systemClock;
  const c = clock as Partial<Clock> | null;
  if (typeof c?.now !== 'function' || typeof c.setTimer !== 'function') {
    throw optionMistake(
      '`clock` must have now() and setTimer(fn, ms), like VirtualClock from @sms-webhooks/core/testing.',
    );
  }
  return c as Clock;
}
