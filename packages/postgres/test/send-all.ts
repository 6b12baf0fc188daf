import type { TestDelivery } from '@sms-webhooks/core';
import { sleep } from '@sms-webhooks/test-helpers/postgres-db';
import { type Answer, deliver } from './service.js';

export interface SendAllOptions<I extends { url: string }> {
  concurrency: number;
  /** The instance the next attempt goes to. */
  pick(): I | Promise<I>;
  /** Every answer (status 0: none), before the next attempt. */
  onAnswer?(answer: Answer, instance: I): void | Promise<void>;
  maxAttempts: number;
  /** The wait between two attempts of one delivery. */
  pauseMs: number;
}

/**
 * The service at work: `concurrency` senders take the deliveries in turn and send each until it is
 * answered 200, every attempt to the instance `pick` gives, as the service's retries would.
 */
export async function sendAll<I extends { url: string }>(
  queue: readonly TestDelivery<'message.delivered'>[],
  options: SendAllOptions<I>,
): Promise<void> {
  let next = 0;
  async function sender(): Promise<void> {
    while (next < queue.length) {
      const delivery = queue[next++]!;
      for (let attempt = 1; ; attempt++) {
        const instance = await options.pick();
        const answer = await deliver(instance.url, delivery, attempt);
        await options.onAnswer?.(answer, instance);
        if (answer.status === 200) break;
        if (attempt > options.maxAttempts)
          throw new Error(
            `${delivery.event.id}: still ${answer.status} after ${options.maxAttempts} attempts`,
          );
        await sleep(options.pauseMs);
      }
    }
  }
  await Promise.all(Array.from({ length: options.concurrency }, sender));
}
