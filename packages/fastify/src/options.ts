import type { Receiver } from '@sms-webhooks/core';
import { checkReceiver, drainTimeoutOption } from '@sms-webhooks/core/adapter';
import { optionError } from '@sms-webhooks/internal';

/** `app.register(webhookPlugin, options)`: the receiver and its route. Checked at register time. */
export interface WebhookPluginOptions {
  /** From `createReceiver()`: handlers, secret, store and body limit all live there. */
  receiver: Receiver;
  /** The route deliveries are POSTed to, e.g. '/webhooks/sms'. */
  path: string;
  /** How long `app.close()` waits for in-flight handlers ('immediately' mode). Default 10 000 ms. */
  drainTimeoutMs?: number;
}

function fail(message: string): never {
  throw optionError('@sms-webhooks/fastify', message);
}

/** Checked at register time, so a mistake stops start-up instead of failing the first delivery. */
export function validateOptions(
  options: Partial<WebhookPluginOptions> | undefined,
): Required<WebhookPluginOptions> {
  const { receiver, path } = options ?? {};
  checkReceiver(
    '@sms-webhooks/fastify',
    receiver,
    "the `receiver` option is required: app.register(webhookPlugin, { receiver: createReceiver({ secret }), path: '/webhooks/sms' })",
  );
  if (typeof path !== 'string' || !path.startsWith('/')) {
    fail(`the \`path\` option must be a route path starting with '/', got ${JSON.stringify(path)}.`);
  }
  const drainTimeoutMs = drainTimeoutOption('@sms-webhooks/fastify', options?.drainTimeoutMs);
  return { receiver, path, drainTimeoutMs };
}
