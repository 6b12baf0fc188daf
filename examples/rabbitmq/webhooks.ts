import { createReceiver, type DedupeStore, type Receiver } from '@sms-webhooks/core';
import type { Dispatch } from '@sms-webhooks/core/queue';

const DEV_SECRET = 'whsec_dev_only_not_a_real_secret_0000';

export function webhookSecret(): string {
  const secret = process.env.SMS_WEBHOOK_SECRET?.trim();
  if (secret) return secret;
  return DEV_SECRET;
}

export function amqpUrl(): string {
  return process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
}

export function redisUrl(): string {
  return process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
}

/** The same on both sides; `start.ts` gives its own run a queue of its own. */
export function queueName(): string {
  return process.env.SMS_WEBHOOKS_QUEUE ?? 'sms-webhooks';
}

/**
 * One definition of the webhook handlers, imported by both processes. The receiver process passes
 * `dispatch` (events go to RabbitMQ, handlers never run there); the worker process does not, and runs
 * them through createWorker.
 */
export function createWebhookReceiver(options: { store: DedupeStore; dispatch?: Dispatch }): Receiver {
  const receiver = createReceiver({ secret: webhookSecret(), ...options });
  receiver.on(['message.sent', 'message.delivered'], async (event, ctx) => {
    console.log(
      `handled ${event.type} ${event.id}: message ${event.data.id} to ${event.data.to} (attempt ${ctx.attempt ?? '?'})`,
    );
  });
  receiver.on('message.failed', async (event) => {
    console.log(`handled ${event.type} ${event.id}: ${event.data.to} failed`);
  });
  receiver.on('webhook.test', (event) => {
    console.log(`handled ${event.type} ${event.id}: the service says hello`);
  });
  return receiver;
}
