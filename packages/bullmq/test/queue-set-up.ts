import type { EnqueueOptions } from '@sms-webhooks/bullmq';
import { createReceiver, type DedupeStore, type Receiver, type ReceiverOptions } from '@sms-webhooks/core';
import { type Closer, captureLogger, queueReceiver, redisStore, secret, uniqueName } from './helpers.js';

/** A redis-server as `useRedisServer()` gives it: its URL and the closer emptied after each test. */
export interface TestRedis {
  readonly url: string;
  closer: Closer;
}

/**
 * A queue of its own and the receiver that enqueues to it. The store, unless one is given, is a
 * RedisStore on a client of its own, as the receiver process would have.
 */
export async function queueSetUp(
  redis: TestRedis,
  options: { store?: DedupeStore; enqueue?: EnqueueOptions } & Partial<ReceiverOptions> = {},
) {
  const queueName = uniqueName();
  const store = options.store ?? (await redisStore(redis.url, redis.closer));
  return {
    queueName,
    store,
    ...queueReceiver(redis.closer, { ...options, url: redis.url, queueName, store }),
  };
}

/** The worker process's receiver: the handlers run here, with a RedisStore on a client of its own. */
export async function workerReceiver(redis: TestRedis): Promise<Receiver> {
  return createReceiver({
    secret,
    store: await redisStore(redis.url, redis.closer),
    logger: captureLogger(),
  });
}
