import { type Receiver, WebhookReceiver } from './receiver.js';
import type { ReceiverOptions } from './receiver-options.js';

/**
 * A receiver: verifies each delivery against the raw body, answers it, and runs your typed handlers once
 * per event however often the service delivers it. Mount it with an adapter (Express, Fastify, Koa, the
 * Web one, Lambda) or call `receiver.handle({ rawBody, headers })` yourself. Options are checked here:
 * a mistake throws a `TypeError` that says what to fix.
 *
 * @example
 * ```ts
 * import { createReceiver } from '@sms-webhooks/core';
 *
 * const receiver = createReceiver({ secret: process.env.SMS_WEBHOOK_SECRET! });
 * receiver.on('message.delivered', async (event) => {
 *   console.log(`${event.data.id} delivered to ${event.data.to}`); // typed per event type
 * });
 * receiver.on('message.failed', (event, ctx) => {
 *   console.error(`${event.data.to}: ${event.data.error?.code} (attempt ${ctx.attempt})`);
 * });
 * ```
 */
export function createReceiver(options: ReceiverOptions): Receiver {
  return new WebhookReceiver(options);
}
