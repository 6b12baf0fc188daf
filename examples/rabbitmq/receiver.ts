import type { AddressInfo } from 'node:net';
import { webhookMiddleware } from '@sms-webhooks/express';
import { enqueueTo } from '@sms-webhooks/rabbitmq';
import { RedisStore } from '@sms-webhooks/redis';
import amqp from 'amqplib';
import express from 'express';
import { Redis } from 'ioredis';
import { amqpUrl, createWebhookReceiver, queueName, redisUrl } from './webhooks.js';

// amqplib's recovery reconnects with back-off; while it is down every delivery is answered 503 at once.
const connection = await amqp.connect(amqpUrl(), { recovery: {} });
connection.on('error', (error) => console.error(`receiver: rabbitmq: ${error.message}`));
let connected = true;
connection.on('disconnect', () => {
  connected = false;
});
connection.on('connect', () => {
  connected = true;
});
// Fail fast while Redis is down: the receiver answers 503 and the service retries later.
const redis = new Redis(redisUrl(), { maxRetriesPerRequest: 1, enableOfflineQueue: false });
redis.on('error', (error) => console.error(`receiver: redis: ${error.message}`));
const store = new RedisStore({ client: redis, clientType: 'ioredis' });
const dispatch = enqueueTo(connection, { store, queue: queueName() });
const receiver = createWebhookReceiver({ store, dispatch });

const app = express();
app.all('/webhooks/sms', webhookMiddleware(receiver));
// A readiness probe: 503 until both connections are up (start.ts waits for it).
app.get('/health', (_req, res) => {
  const ok = redis.status === 'ready' && connected;
  res.status(ok ? 200 : 503).json({ ok, redis: redis.status, rabbitmq: connected ? 'connected' : 'down' });
});
const port = Number(process.env.PORT ?? 3000);
// Express 5 hands the listen error to the callback; address() is null then.
const server = app.listen(port, (error) => {
  if (error) {
    console.error(`receiver cannot listen on port ${port} (${error.message}): set PORT to a free port`);
    process.exit(1);
  }
  console.log(
    `receiver listening on http://localhost:${(server.address() as AddressInfo).port}/webhooks/sms`,
  );
});

async function shutdown(): Promise<void> {
  // Bounded, and a close that fails (a broker already gone, say) is reported instead of crashing the exit.
  setTimeout(() => process.exit(1), 15_000).unref();
  server.close();
  server.closeIdleConnections();
  await receiver.close(10_000);
  await dispatch.close();
  for (const closed of await Promise.allSettled([connection.close(), redis.quit()])) {
    if (closed.status === 'rejected') console.error(`receiver: close: ${String(closed.reason)}`);
  }
  process.exit(0);
}
process.once('SIGTERM', () => void shutdown());
process.once('SIGINT', () => void shutdown());
