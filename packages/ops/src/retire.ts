import type { Client } from '@sms-webhooks/client';
import { optionMistake, positiveMs } from './errors.js';
import { type PendingDelivery, pendingOnlyOn } from './pending.js';
import { type Clock, clockOption, sleep } from './wait.js';

/** Which webhook {@link retireWebhook} deletes, and how long it waits for what that webhook still owes. */
export interface RetireOptions {
  /** The webhook to delete once it owes the app nothing (`wh_…`). */
  webhookId: string;
  /** The webhook that replaced it: events it also has are retried there, so they do not hold this one up. */
  replacementId?: string;
  /** How long to wait for the pending deliveries to finish. Default 0: check once. */
  timeoutMs?: number;
  /** Between two checks of the deliveries lists. Default 15 s. */
  pollMs?: number;
  /** What it still waits for, after each check that found something. */
  onWaiting?(pending: PendingDelivery[]): void;
  /** Where the waits take their time; a `VirtualClock` in tests. Default the system clock. */
  clock?: Clock;
  /** Aborts the waits: the call rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** What {@link retireWebhook} did. */
export interface RetireResult {
  /** The webhook asked about. */
  webhookId: string;
  /** True once the webhook is deleted; false when `waitingFor` still held it at the end of the wait. */
  deleted: boolean;
  /** The events only this webhook still delivers (empty once deleted), soonest attempt first. */
  waitingFor: PendingDelivery[];
}

function nonNegativeMs(name: string, value: unknown, fallback: number): number {
  if (value === 0) return 0;
  return positiveMs(name, value, fallback);
}

/**
 * Deletes a webhook only when no delivery of its own is still pending: the service cancels a deleted
 * webhook's retries, so an event it is retrying (the app answered 500 an hour ago) and no other webhook
 * has would be lost. Waits up to `timeoutMs` for those attempts to finish, then deletes, or leaves the
 * webhook in place and names what it waits for. Run it again later to finish.
 */
export async function retireWebhook(
  client: Pick<Client, 'listDeliveries' | 'deleteWebhook'>,
  options: RetireOptions,
): Promise<RetireResult> {
  if (typeof options !== 'object' || options === null) {
    throw optionMistake('retireWebhook(client, { webhookId }) takes an options object.');
  }
  for (const name of ['webhookId', 'replacementId'] as const) {
    const id = options[name];
    if ((name === 'webhookId' || id !== undefined) && (typeof id !== 'string' || !id.startsWith('wh_'))) {
      throw optionMistake(`\`${name}\` must be a wh_… webhook id, got ${JSON.stringify(id)}.`);
    }
  }
  const timeoutMs = nonNegativeMs('timeoutMs', options.timeoutMs, 0);
  const pollMs = positiveMs('pollMs', options.pollMs, 15_000);
  const clock = clockOption(options.clock);
  const carriedBy = options.replacementId === undefined ? [] : [options.replacementId];
  const deadline = clock.now() + timeoutMs;
  for (;;) {
    const waitingFor = await pendingOnlyOn(client, options.webhookId, carriedBy);
    if (waitingFor.length === 0) {
      await client.deleteWebhook(options.webhookId);
      return { webhookId: options.webhookId, deleted: true, waitingFor };
    }
    options.onWaiting?.(waitingFor);
    const left = deadline - clock.now();
    if (left <= 0) return { webhookId: options.webhookId, deleted: false, waitingFor };
    await sleep(clock, Math.min(pollMs, left), options.signal);
  }
}
