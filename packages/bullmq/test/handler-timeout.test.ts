import { createWorker } from '@sms-webhooks/bullmq';
import { createReceiver, createTestDelivery, type WebhookHandlerError } from '@sms-webhooks/core';
import { hungOnce } from '@sms-webhooks/test-helpers/hung-handler';
import { expect, it } from 'vitest';
import { captureLogger, connectionOf, redisStore, secret, useRedisServer, waitFor } from './helpers.js';
import { queueSetUp } from './queue-set-up.js';

const redis = useRedisServer();

it("a job whose handler never settles fails at the receiver's handlerTimeoutMs, is retried, and its claim is let go", async () => {
  const { queueName, queue, store, receiver } = await queueSetUp(redis, {
    enqueue: { attempts: 2, backoff: 10 },
  });
  const {
    receiver: workerSide,
    signals,
    timeOut,
  } = hungOnce({
    secret,
    store: await redisStore(redis.url, redis.closer),
  });
  const reported: WebhookHandlerError[] = [];
  workerSide.onError((error) => void reported.push(error));
  const worker = redis.closer.add(
    createWorker(workerSide, { connection: connectionOf(redis.url), queue: queueName }),
  );
  const d = createTestDelivery('message.delivered', { secret });
  expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);

  await timeOut();
  await waitFor(
    async () => (await (await queue.getJob(d.event.id))?.getState()) === 'completed',
    'the retry',
  );
  await worker.close();
  expect(signals).toHaveLength(2);
  expect((await queue.getJob(d.event.id))?.attemptsMade).toBe(2);
  expect(reported).toEqual([]); // the retry succeeded: nothing failed for good
  expect(await store.claim(d.event.id, 'probe', 1000)).toBe('completed');
});

it('handlerTimeoutMs on the worker: for a map of handlers; refused at start-up with a receiver or a bad value', () => {
  const connection = connectionOf(redis.url);
  const receiver = createReceiver({ secret, logger: captureLogger() });
  expect(() =>
    createWorker(receiver, { connection, handlerTimeoutMs: 1_000, workerOptions: { autorun: false } }),
  ).toThrow(
    expect.objectContaining({
      code: 'ERR_SMS_OPTIONS',
      message: expect.stringMatching(/^@sms-webhooks\/bullmq: .*createReceiver\(\{ handlerTimeoutMs \}\)/),
    }),
  );
  expect(() =>
    createWorker(
      { 'message.sent': () => {} },
      { connection, handlerTimeoutMs: 0, workerOptions: { autorun: false } },
    ),
  ).toThrow(
    expect.objectContaining({
      code: 'ERR_SMS_OPTIONS',
      message: expect.stringContaining('handlerTimeoutMs'),
    }),
  );
  const worker = createWorker(
    { 'message.sent': () => {} },
    { connection, handlerTimeoutMs: false, workerOptions: { autorun: false } },
  );
  redis.closer.add(worker);
  expect(worker.isRunning()).toBe(false);
});
