import { createReceiver, type DedupeStore, type Logger, type Receiver } from '@sms-webhooks/core';
import { webhookHandler } from '@sms-webhooks/web';
import { Hono } from 'hono';

export interface ExampleOptions {
  /** The webhook secret (whsec_…); several while rotating. */
  secret: string | string[];
  /** Default a MemoryStore; pass a RedisStore when several instances run. */
  store?: DedupeStore;
  /** Where the app says what it received (and the receiver's warnings). Default console.log. */
  log?: (line: string) => void;
}

export function createApp({ secret, store, log = console.log }: ExampleOptions): {
  app: Hono;
  receiver: Receiver;
} {
  const logger: Logger = {
    warn: (...args) => log(`warn: ${args.join(' ')}`),
    error: (...args) => log(`error: ${args.join(' ')}`),
  };
  const receiver = createReceiver({ secret, store, logger });
  receiver.on(['message.sent', 'message.delivered'], (event, ctx) => {
    log(
      `${event.type} ${event.id}: message ${event.data.id} to ${event.data.to} (attempt ${ctx.attempt ?? '?'})`,
    );
  });
  receiver.on('message.failed', (event) => {
    log(`${event.type} ${event.id}: ${event.data.to} failed: ${event.data.error?.code ?? 'unknown'}`);
  });
  receiver.on('webhook.test', (event) => {
    log(`${event.type} ${event.id}: the service says hello`);
  });
  receiver.onError((error) => log(`error: handler failed for ${error.event.id}: ${error.message}`));

  const handler = webhookHandler(receiver);
  const app = new Hono();
  // c.req.raw is the untouched Request: do not call c.req.json() or a validator on this route.
  // app.all rather than app.post: GET, PUT … on the webhook path get 405 with Allow: POST.
  // On Cloudflare Workers pass the platform context too: handler(c.req.raw, c.executionCtx).
  app.all('/webhooks/sms', (c) => handler(c.req.raw));
  app.get('/health', (c) => c.json({ ok: true }));
  return { app, receiver };
}
