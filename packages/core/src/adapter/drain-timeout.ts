import { positiveOption } from '@sms-webhooks/internal';

/** How long an adapter's shutdown waits for handlers still running after their 200, unless told otherwise. */
export const DEFAULT_DRAIN_TIMEOUT_MS = 10_000;

/**
 * An adapter's `drainTimeoutMs` option, checked at start-up: `undefined` gives the default. The error
 * starts with the adapter's `name`, as its other option errors do.
 */
export function drainTimeoutOption(name: string, value: unknown): number {
  return positiveOption('drainTimeoutMs', value, DEFAULT_DRAIN_TIMEOUT_MS, {
    owner: name,
    unit: `milliseconds, such as ${DEFAULT_DRAIN_TIMEOUT_MS} (the default)`,
  });
}
