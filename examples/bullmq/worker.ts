import { createWorker } from '@sms-webhooks/bullmq';
import { RedisStore } from '@sms-webhooks/redis';
import { Redis } from 'ioredis';
import { createWebhookReceiver, QUEUE_NAME, redisUrl } from './webhooks.js';

const redis = new Redis(redisUrl(), { maxRetriesPerRequest: 1 });
redis.on('error', (error) => console.error(`worker: redis: ${error.message}`));

const worker = createWorker(
  createWebhookReceiver({ store: new RedisStore({ client: redis, clientType: 'ioredis' }) }),
  {
    connection: { url: redisUrl() },
    queue: QUEUE_NAME,
    concurrency: Number(process.env.CONCURRENCY ?? 5),
    // Called once per job that failed for good (attempts used up, or it stalled too often).
    onError: (error, job) => {
      console.error(
        `worker: ${job.data.event.id} gave up after ${job.attemptsMade} attempt(s): ${String(error)}`,
      );
    },
  },
);
worker.on('ready', () => console.log(`worker ready (queue ${QUEUE_NAME})`));

async function shutdown(): Promise<void> {
  // Waits for running jobs, but not forever (Redis may be gone): a job cut off here is picked up again
  // by another worker once its lock expires.
  setTimeout(() => process.exit(1), 30_000).unref();
  for (const closed of await Promise.allSettled([worker.close(), redis.quit()])) {
    if (closed.status === 'rejected') console.error(`worker: close: ${String(closed.reason)}`);
  }
  process.exit(0);
}
process.once('SIGTERM', () => void shutdown());
process.once('SIGINT', () => void shutdown());
