import { optionError } from '@sms-webhooks/internal';
import type { AdapterReceiver } from '../receiver/receiver.js';

/**
 * An adapter's start-up check of what it was given in place of a receiver, so that a missing one, a
 * receiver's options object or a look-alike stops the app at start-up instead of failing every delivery.
 * Both entry points use `handle`, `refuse` and `options` (the body limit, the read time-out, the logger).
 * `problem` says what was needed in the adapter's own terms; it starts the message after `name`.
 */
export function checkReceiver(
  name: string,
  receiver: unknown,
  problem = 'needs a receiver from createReceiver()',
): asserts receiver is AdapterReceiver {
  const given = receiver as Partial<AdapterReceiver> | null | undefined;
  if (
    typeof given?.handle === 'function' &&
    typeof given.refuse === 'function' &&
    typeof given.options?.maxBodyBytes === 'number'
  )
    return;
  throw optionError(name, `${problem}; got ${describe(given)}.`);
}

function describe(given: Partial<AdapterReceiver> | null | undefined): string {
  if (given === null || given === undefined) return String(given);
  if (typeof given !== 'object') return typeof given;
  if (typeof given.handle !== 'function') return 'an object without a handle() method';
  if (typeof given.options?.maxBodyBytes !== 'number') {
    return 'an object with handle() but without the options createReceiver() sets';
  }
  return 'an object with handle() but without refuse() (a wrapper must pass refuse() on too; a receiver from an older @sms-webhooks/core needs matching package versions)';
}
