import { createWorker, enqueueTo, type WebhookJob } from '@sms-webhooks/bullmq';
import { createReceiver, type DedupeStore } from '@sms-webhooks/core';
import * as jobOrder from '@sms-webhooks/test-helpers/job-order';
import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import {
  captureLogger,
  connectionOf,
  redisStore,
  secret,
  uniqueName,
  useRedisServer,
  waitFor,
} from './helpers.js';

/**
 * `order` on the BullMQ hand-off: the receiver puts each status event's object and version on its job,
 * and the worker takes the job's turn in the store before running it (stale, wait, run).
 */
const redis = useRedisServer();
const c = redis.closer;

/** A receiver with `order` that enqueues, on its own RedisStore client (the receiving process). */
async function orderedReceiver(queueName: string, attempts = 8) {
  const queue = c.add(new Queue(queueName, { connection: connectionOf(redis.url) }));
  queue.on('error', () => {});
  const store = await redisStore(redis.url, c);
  const receiver = createReceiver({
    secret,
    store,
    order: true,
    logger: captureLogger(),
    dispatch: enqueueTo(queue, { attempts, backoff: 10 }),
  });
  receiver.on(jobOrder.STATUSES, () => {
    throw new Error('handlers must not run in the receiver process');
  });
  return { queue, receiver };
}

/** A worker process: its own receiver and RedisStore client, its handlers given by the test. */
async function orderedWorker(
  queueName: string,
  handler: (event: { id: string; type: string; data: { id: string } }) => Promise<void> | void,
  stale: string[],
  options: { concurrency?: number; store?: DedupeStore } = {},
) {
  const store = options.store ?? (await redisStore(redis.url, c));
  const receiver = createReceiver({ secret, store, order: true, logger: captureLogger() });
  receiver.on(jobOrder.STATUSES, (event) => handler(event as never));
  receiver.onStale((event, object) => void stale.push(`${object.key} ${event.type}`));
  return c.add(
    createWorker(receiver, {
      connection: connectionOf(redis.url),
      queue: queueName,
      concurrency: options.concurrency ?? 2,
      orderWaitMs: 20,
    }),
  );
}

const status = jobOrder.statusSigner(secret);

describe('order: true with enqueueTo (BullMQ): the worker applies the rule', () => {
  it('shuffled status events through two workers end at each message newest status; older ones are stale, and no two of one message run at once', async () => {
    const queueName = uniqueName('order');
    const { queue, receiver } = await orderedReceiver(queueName);
    const messages = Array.from({ length: 12 }, (_, i) => `msg_q${i}_${uniqueName('m')}`);
    const deliveries = jobOrder.sentRetriedAndFinal(status, messages);
    for (const d of jobOrder.shuffled(deliveries, 7)) {
      expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
    }
    const job = await queue.getJob(deliveries[0]!.event.id);
    expect(job?.data.order?.key).toBe(`message:${messages[0]}`);

    const recorder = jobOrder.overlapRecorder();
    const stale: string[] = [];
    await orderedWorker(queueName, recorder.handler, stale);
    await orderedWorker(queueName, recorder.handler, stale);
    await waitFor(
      async () => (await queue.getCompletedCount()) === deliveries.length,
      'every job to complete',
    );

    jobOrder.expectNewestStatuses(recorder, messages, deliveries, stale);
    expect(await queue.getFailedCount()).toBe(0);
    // A stale job is done for good: its redelivery is a duplicate.
    const staleOne = deliveries.find((d) => stale.includes(`message:${d.event.data.id} ${d.event.type}`))!;
    const again = await receiver.handle({ rawBody: staleOne.body, headers: staleOne.headers });
    expect(JSON.parse(again.body)).toEqual({ received: true, duplicate: true });
  });

  it('a job whose message another job holds waits (delayed) without spending its attempts, then runs', async () => {
    const queueName = uniqueName('busy');
    // One attempt: a wait counted as one would fail the job for good.
    const { queue, receiver } = await orderedReceiver(queueName, 1);
    const m = `msg_busy_${uniqueName('m')}`;
    const { delivered, seen, stale, unblock } = await jobOrder.deliveredWhileSentRuns(
      receiver,
      status,
      m,
      (handler, staleInto) => orderedWorker(queueName, handler, staleInto, { concurrency: 1 }),
    );

    // The second worker finds the message held: the job goes back to the delayed set, again and again.
    const delays: number[] = [];
    const events = c.add(
      new (await import('bullmq')).QueueEvents(queueName, { connection: connectionOf(redis.url) }),
    );
    events.on('delayed', ({ jobId }) => jobId === delivered.event.id && delays.push(Date.now()));
    await waitFor(() => delays.length >= 3, 'the waiting job to be put back three times');
    const waiting = (await queue.getJob(delivered.event.id)) as WebhookJob;
    expect(await waiting.getState()).toMatch(/delayed|waiting|active/);
    expect(waiting.attemptsMade).toBe(0);
    expect(seen).toEqual(['message.sent']);

    unblock();
    await waitFor(async () => (await queue.getCompletedCount()) === 2, 'both jobs to complete');
    expect(seen).toEqual(['message.sent', 'message.delivered']);
    expect(stale).toEqual([]);
    expect(await queue.getFailedCount()).toBe(0);
  });

  it('a worker built from a receiver with order refuses a store that keeps no versions, with a coded error', async () => {
    const store = {
      localKeys: false,
      claim: async () => 'claimed',
      complete: async () => true,
      release: async () => true,
    };
    const receiver = createReceiver({ secret, order: true, logger: captureLogger() });
    expect(() =>
      createWorker(receiver, {
        connection: connectionOf(redis.url),
        store: store as never,
        workerOptions: { autorun: false },
      }),
    ).toThrow(
      expect.objectContaining({ code: 'ERR_SMS_OPTIONS', message: expect.stringContaining('keeps none') }),
    );
  });
});
