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
  // Waits for running jobs; a job cut off by a hard kill is picked up again by another worker.
  await worker.close();
  await redis.quit();
  process.exit(0);
}
process.once('SIGTERM', () => void shutdown());
process.once('SIGINT', () => void shutdown());
