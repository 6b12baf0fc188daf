import { createServer, type Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  createReceiver,
  type DedupeStore,
  type Logger,
  type Receiver,
  type RespondMode,
} from '@sms-webhooks/core';
import { webhookMiddleware } from '@sms-webhooks/express';
import express, { type Express } from 'express';

export interface ExampleOptions {
  /** The webhook secret (whsec_…); several while rotating. */
  secret: string | string[];
  /** Default a MemoryStore; pass a RedisStore when several instances run. */
  store?: DedupeStore;
  respond?: RespondMode;
  /** Where the app says what it received (and the receiver's warnings). Default console.log. */
  log?: (line: string) => void;
  /**
   * Makes every handler wait this long before it logs, like real work (a database write). The shutdown
   * test uses it to send SIGTERM while a handler runs and see that it still finishes. Default 0.
   */
  slowHandlerMs?: number;
}

export interface ExampleApp {
  app: Express;
  receiver: Receiver;
  /** A Node server for `app`, not yet listening. */
  server: Server;
}

export function createApp({
  secret,
  store,
  respond,
  log = console.log,
  slowHandlerMs = 0,
}: ExampleOptions): ExampleApp {
  const logger: Logger = {
    warn: (...args) => log(`warn: ${args.join(' ')}`),
    error: (...args) => log(`error: ${args.join(' ')}`),
  };
  const receiver = createReceiver({ secret, store, respond, logger });
  const work = () => (slowHandlerMs > 0 ? sleep(slowHandlerMs) : undefined);

  receiver.on(['message.sent', 'message.delivered'], async (event, ctx) => {
    await work();
    log(
      `${event.type} ${event.id}: message ${event.data.id} to ${event.data.to} (attempt ${ctx.attempt ?? '?'})`,
    );
  });
  receiver.on('message.failed', async (event) => {
    await work();
    log(`${event.type} ${event.id}: ${event.data.to} failed: ${event.data.error?.code ?? 'unknown'}`);
  });
  receiver.on('message.replied', async (event) => {
    await work();
    log(`${event.type} ${event.id}: reply from ${event.data.to}`);
  });
  receiver.on('sms.completed', async (event) => {
    await work();
    log(`${event.type} ${event.id}: send ${event.data.id} completed`);
  });
  receiver.on('webhook.test', async (event) => {
    await work();
    log(`${event.type} ${event.id}: the service says hello`);
  });
  receiver.onError((error) => log(`error: handler failed for ${error.event.id}: ${error.message}`));

  const app = express();
  // The webhook route comes before express.json(): the signature is checked over the raw bytes.
  // app.all rather than app.post: GET, PUT … on the webhook path get 405 with Allow: POST.
  app.all('/webhooks/sms', webhookMiddleware(receiver));
  app.use(express.json());
  app.get('/health', (_req, res) => {
    res.json({ ok: true });
  });
  return { app, receiver, server: createServer(app) };
}
