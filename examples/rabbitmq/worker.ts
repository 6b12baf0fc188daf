import { createWorker } from '@sms-webhooks/rabbitmq';
import { RedisStore } from '@sms-webhooks/redis';
import amqp from 'amqplib';
import { Redis } from 'ioredis';
import { amqpUrl, createWebhookReceiver, queueName, redisUrl } from './webhooks.js';

const connection = await amqp.connect(amqpUrl(), { recovery: {} });
connection.on('error', (error) => console.error(`worker: rabbitmq: ${error.message}`));
const redis = new Redis(redisUrl(), { maxRetriesPerRequest: 1 });
redis.on('error', (error) => console.error(`worker: redis: ${error.message}`));

const worker = await createWorker(
  createWebhookReceiver({ store: new RedisStore({ client: redis, clientType: 'ioredis' }) }),
  {
    connection,
    queue: queueName(),
    prefetch: Number(process.env.PREFETCH ?? 10),
    // Called once per event that failed for good: it is in the failed queue for `sms-webhooks failed`.
    onError: (error, { data, runs }) => {
      console.error(`worker: ${data.event.id} gave up after ${runs + 1} run(s): ${String(error)}`);
    },
  },
);
console.log(`worker ready (queue ${queueName()})`);

async function shutdown(): Promise<void> {
  // Waits for running messages, but not forever: one cut off here is handed to another worker by RabbitMQ.
  setTimeout(() => process.exit(1), 30_000).unref();
  await worker.close();
  for (const closed of await Promise.allSettled([connection.close(), redis.quit()])) {
    if (closed.status === 'rejected') console.error(`worker: close: ${String(closed.reason)}`);
  }
  process.exit(0);
}
process.once('SIGTERM', () => void shutdown());
process.once('SIGINT', () => void shutdown());
