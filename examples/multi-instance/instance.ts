import type { AddressInfo } from 'node:net';
import { createReceiver } from '@sms-webhooks/core';
import { webhookMiddleware } from '@sms-webhooks/express';
import express from 'express';
import { connectStore } from './store.js';

// One app instance: its own HTTP server, receiver, Redis connection and store. Run several of these
// (processes, containers, pods) against the same REDIS_URL and each event is handled by one of them.

const name = process.env.INSTANCE ?? 'a';
const client = process.env.REDIS_CLIENT === 'node-redis' ? 'node-redis' : 'ioredis';
const secret = process.env.SMS_WEBHOOK_SECRET ?? 'whsec_dev_only_not_a_real_secret_0000';
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const { store, close } = await connectStore(client, redisUrl);
// 'after-handlers': the answer says what happened, which makes the demo's output easy to read.
const receiver = createReceiver({ secret, store, respond: 'after-handlers' });
const handled: string[] = [];

receiver.onAny((event) => {
  handled.push(event.id);
  console.log(`handled ${event.type} ${event.id}`);
});

const app = express();
app.all('/webhooks/sms', webhookMiddleware(receiver));
app.get('/handled', (_req, res) => {
  res.json({ instance: name, handled });
});
app.get('/health', (_req, res) => {
  res.json({ ok: true });
});

const port = Number(process.env.PORT ?? 3000);
// Express 5 hands the listen error to the callback; address() is null then.
const server = app.listen(port, '127.0.0.1', (error) => {
  if (error) {
    console.error(`cannot listen on port ${port} (${error.message}): set PORT to a free port`);
    process.exit(1);
  }
  console.log(
    `listening on http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/sms (${client})`,
  );
});

async function shutdown(): Promise<void> {
  server.close();
  server.closeIdleConnections();
  await receiver.close(10_000);
  await close();
  process.exit(0);
}
process.once('SIGTERM', () => void shutdown());
process.once('SIGINT', () => void shutdown());
