import type { AddressInfo } from 'node:net';
import { enqueueTo } from '@sms-webhooks/bullmq';
import { webhookMiddleware } from '@sms-webhooks/express';
import { RedisStore } from '@sms-webhooks/redis';
import { Queue } from 'bullmq';
import express from 'express';
import { Redis } from 'ioredis';
import { createWebhookReceiver, QUEUE_NAME, redisUrl } from './webhooks.js';

// Fail fast while Redis is down: the receiver answers 503 and the service retries later.
const redis = new Redis(redisUrl(), { maxRetriesPerRequest: 1, enableOfflineQueue: false });
redis.on('error', (error) => console.error(`receiver: redis: ${error.message}`));
const queue = new Queue(QUEUE_NAME, { connection: { url: redisUrl(), enableOfflineQueue: false } });
queue.on('error', (error) => console.error(`receiver: queue: ${error.message}`));

const receiver = createWebhookReceiver({
  store: new RedisStore({ client: redis, clientType: 'ioredis' }),
  dispatch: enqueueTo(queue, { attempts: 8 }),
});

const app = express();
app.all('/webhooks/sms', webhookMiddleware(receiver));
// A readiness probe: with the offline queue off, a delivery that arrives before Redis is connected
// gets a 503, so load balancers (and start.ts) wait for this to say yes before sending any.
let queueReady = false;
queue.waitUntilReady().then(
  () => {
    queueReady = true;
  },
  () => {},
);
app.get('/health', (_req, res) => {
  const ok = redis.status === 'ready' && queueReady;
  res.status(ok ? 200 : 503).json({ ok, redis: redis.status, queue: queueReady ? 'ready' : 'connecting' });
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
  // Bounded, and a close that fails (Redis already gone, say) is reported instead of crashing the exit.
  setTimeout(() => process.exit(1), 15_000).unref();
  server.close();
  server.closeIdleConnections();
  await receiver.close(10_000);
  for (const closed of await Promise.allSettled([queue.close(), redis.quit()])) {
    if (closed.status === 'rejected') console.error(`receiver: close: ${String(closed.reason)}`);
  }
  process.exit(0);
}
process.once('SIGTERM', () => void shutdown());
process.once('SIGINT', () => void shutdown());
