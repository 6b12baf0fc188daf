import { optionError, positiveOption } from '@sms-webhooks/internal';

/** The `maxConcurrency` and `maxQueue` options, checked; undefined when there is no limit. */
export interface ConcurrencyOptions {
  maxConcurrency: number;
  maxQueue: number;
}

/** Events accepted while every slot is busy, by default: a burst's first seconds, a few MB of events. */
export const DEFAULT_MAX_QUEUE = 1000;

/** Checked at start-up: whole numbers, `maxQueue` only with `maxConcurrency`, neither with `dispatch`. */
export function concurrencyOptions(options: {
  maxConcurrency?: unknown;
  maxQueue?: unknown;
  dispatch?: unknown;
}): ConcurrencyOptions | undefined {
  const { maxConcurrency, maxQueue, dispatch } = options;
  if (maxConcurrency === undefined) {
    if (maxQueue === undefined) return undefined;
    throw optionError(
      'sms-webhooks',
      '`maxQueue` bounds the events waiting for one of `maxConcurrency` handler slots: set `maxConcurrency` too.',
    );
  }
  if (dispatch !== undefined) {
    throw optionError(
      'sms-webhooks',
      "`maxConcurrency` bounds the handlers run in this process, and with `dispatch` they run in a queue worker: bound them there (the worker's own concurrency), or drop `dispatch`.",
    );
  }
  const whole = { integer: true, unit: 'handler runs' } as const;
  const max = positiveOption('maxConcurrency', maxConcurrency, 1, whole);
  // 0 is allowed: no wait list, every event past the slots is refused.
  const queue = maxQueue === 0 ? 0 : positiveOption('maxQueue', maxQueue, DEFAULT_MAX_QUEUE, whole);
  return { maxConcurrency: max, maxQueue: queue };
}
