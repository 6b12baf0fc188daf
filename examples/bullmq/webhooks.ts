import { createReceiver, type DedupeStore, type Receiver } from '@sms-webhooks/core';
import type { Dispatch } from '@sms-webhooks/core/queue';

export const QUEUE_NAME = 'sms-webhooks';
const DEV_SECRET = 'whsec_dev_only_not_a_real_secret_0000';

export function webhookSecret(): string {
  const secret = process.env.SMS_WEBHOOK_SECRET?.trim();
  if (secret) return secret;
  return DEV_SECRET;
}

export function redisUrl(): string {
  return process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
}

/**
 * One definition of the webhook handlers, imported by both processes. The receiver process passes
 * `dispatch` (events go to the queue, handlers never run there); the worker process does not, and runs
 * them through createWorker.
 */
export function createWebhookReceiver(options: { store: DedupeStore; dispatch?: Dispatch }): Receiver {
  // The claim must outlive the job's wait in the queue and its retries (the default backoff alone is
  // ~4 min over 8 attempts), or a redelivery in between could leave the completion unrecorded.
  const receiver = createReceiver({ secret: webhookSecret(), leaseMs: 30 * 60_000, ...options });
  receiver.on(['message.sent', 'message.delivered'], async (event, ctx) => {
    console.log(
      `handled ${event.type} ${event.id}: message ${event.data.id} to ${event.data.to} (attempt ${ctx.attempt ?? '?'})`,
    );
  });
  receiver.on('message.failed', async (event) => {
    console.log(
      `handled ${event.type} ${event.id}: ${event.data.to} failed: ${event.data.error?.code ?? 'unknown'}`,
    );
  });
  receiver.on('webhook.test', (event) => {
    console.log(`handled ${event.type} ${event.id}: the service says hello`);
  });
  return receiver;
}
