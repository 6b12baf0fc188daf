import { createServer, type Server } from 'node:http';
import Router from '@koa/router';
import {
  createReceiver,
  type DedupeStore,
  type Logger,
  type Receiver,
  type RespondMode,
} from '@sms-webhooks/core';
import { webhookMiddleware } from '@sms-webhooks/koa';
import Koa from 'koa';

export interface ExampleOptions {
  /** The webhook secret (whsec_…); several while rotating. */
  secret: string | string[];
  /** Default a MemoryStore; pass a RedisStore when several instances run. */
  store?: DedupeStore;
  respond?: RespondMode;
  /** Where the app says what it received (and the receiver's warnings). Default console.log. */
  log?: (line: string) => void;
}

export interface ExampleApp {
  app: Koa;
  receiver: Receiver;
  /** A Node server for `app`, not yet listening. */
  server: Server;
}

export function createApp({ secret, store, respond, log = console.log }: ExampleOptions): ExampleApp {
  const logger: Logger = {
    warn: (...args) => log(`warn: ${args.join(' ')}`),
    error: (...args) => log(`error: ${args.join(' ')}`),
  };
  const receiver = createReceiver({ secret, store, respond, logger });

  receiver.on(['message.sent', 'message.delivered'], (event, ctx) => {
    log(
      `${event.type} ${event.id}: message ${event.data.id} to ${event.data.to} (attempt ${ctx.attempt ?? '?'})`,
    );
  });
  receiver.on('message.failed', (event) => {
    log(`${event.type} ${event.id}: ${event.data.to} failed: ${event.data.error?.code ?? 'unknown'}`);
  });
  receiver.on('message.replied', (event) => {
    log(`${event.type} ${event.id}: reply from ${event.data.to}`);
  });
  receiver.on('sms.completed', (event) => {
    log(`${event.type} ${event.id}: send ${event.data.id} completed`);
  });
  receiver.on('webhook.test', (event) => {
    log(`${event.type} ${event.id}: the service says hello`);
  });
  receiver.onError((error) => log(`error: handler failed for ${error.event.id}: ${error.message}`));

  const router = new Router();
  // router.all rather than router.post: GET, PUT … on the webhook path get 405 with Allow: POST.
  router.all('/webhooks', webhookMiddleware(receiver));
  router.get('/health', (ctx) => {
    ctx.body = { ok: true };
  });
  const app = new Koa();
  app.use(router.routes());
  return { app, receiver, server: createServer(app.callback()) };
}
