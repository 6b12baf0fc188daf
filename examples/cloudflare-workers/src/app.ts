import { createReceiver, type Logger } from '@sms-webhooks/core';
import { type WebHandler, webhookHandler } from '@sms-webhooks/web';

export interface ExampleOptions {
  /** The webhook secret (whsec_…); several while rotating. */
  secret: string | string[];
  /** Where the app says what it received (and the receiver's warnings). Default console.log. */
  log?: (line: string) => void;
}

/** Cloudflare's execution context: the Worker stays up until each promise given to waitUntil settles. */
export interface ExecutionContext {
  waitUntil(promise: Promise<unknown>): void;
}

export type App = (request: Request, ctx: ExecutionContext) => Promise<Response>;

/**
 * The Worker's app: POST /webhooks/sms verifies the delivery and runs the typed handlers below after the
 * 200, under `ctx.waitUntil`; /health answers; anything else is 404.
 */
export function createApp({ secret, log = console.log }: ExampleOptions): App {
  const logger: Logger = {
    warn: (...args) => log(`warn: ${args.join(' ')}`),
    error: (...args) => log(`error: ${args.join(' ')}`),
  };
  const receiver = createReceiver({ secret, logger });
  // Each handler gets its event type's payload: event.data is a message object for these two.
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

  const handler: WebHandler = webhookHandler(receiver);
  return async (request, ctx) => {
    const { pathname } = new URL(request.url);
    // Every method reaches the handler: GET, PUT … on the webhook path get 405 with Allow: POST.
    if (pathname === '/webhooks/sms') return handler(request, ctx);
    if (pathname === '/health') return Response.json({ ok: true });
    return new Response('Not found', { status: 404 });
  };
}
