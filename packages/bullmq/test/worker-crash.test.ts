import { createWorker } from '@sms-webhooks/bullmq';
import { createReceiver, createTestDelivery, type WebhookHandlerError } from '@sms-webhooks/core';
import { describe, expect, it } from 'vitest';
import { captureLogger, connectionOf, secret, useRedisServer, waitFor } from './helpers.js';
import { queueSetUp } from './queue-set-up.js';
import { spawnHangingWorker } from './worker-process.js';

// Short enough to keep the tests quick, long enough that a busy machine still renews locks in time.
const fast = { lockDuration: 2000, stalledInterval: 500, maxStalledCount: 1 };

const redis = useRedisServer();
const c = redis.closer;

async function enqueueOne() {
  const { queueName, queue, store, receiver } = await queueSetUp(redis);
  const d = createTestDelivery('message.delivered', { secret });
  expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
  return { queueName, queue, store, id: d.event.id };
}

/** Runs the job in a worker process and SIGKILLs that process while the handler is running. */
async function crashWhileRunning(queueName: string, id: string): Promise<void> {
  const child = await spawnHangingWorker({ url: redis.url, queue: queueName, workerOptions: fast });
  try {
    expect(await child.started).toBe(id);
  } finally {
    await child.kill();
  }
}

describe('worker processes killed with SIGKILL mid-job', () => {
  it('the job is retried and completed once by another worker', { timeout: 60_000 }, async () => {
    const { queueName, queue, store, id } = await enqueueOne();
    await crashWhileRunning(queueName, id);
    expect(await (await queue.getJob(id))?.getState()).toBe('active');

    const runs: string[] = [];
    const completed: string[] = [];
    const worker = c.add(
      createWorker(
        { 'message.delivered': (event) => void runs.push(event.id) },
        {
          connection: connectionOf(redis.url),
          queue: queueName,
          store,
          workerOptions: fast,
          logger: captureLogger(),
        },
      ),
    );
    worker.on('completed', (job) => completed.push(job.id!));
    await waitFor(() => completed.length > 0, 'the recovered job to complete', 30_000);
    expect(runs).toEqual([id]);
    expect(completed).toEqual([id]);
    expect(await (await queue.getJob(id))?.getState()).toBe('completed');
    expect(await store.claim(id, 'probe', 1000)).toBe('completed');
  });

  it('a job that stalled more than maxStalledCount reaches the receiver’s onError once and frees its claim', {
    timeout: 60_000,
  }, async () => {
    const { queueName, queue, store, id } = await enqueueOne();
    // Two crashes: the second worker's stalled check hands the job back once (maxStalledCount: 1).
    await crashWhileRunning(queueName, id);
    await crashWhileRunning(queueName, id);

    // No onError option: failures go to the receiver's onError hooks.
    const workerSide = createReceiver({ secret, store, logger: captureLogger() });
    let runs = 0;
    workerSide.on('message.delivered', () => {
      runs++;
    });
    const reported: WebhookHandlerError[] = [];
    workerSide.onError((error) => {
      reported.push(error);
    });
    const worker = c.add(
      createWorker(workerSide, {
        connection: connectionOf(redis.url),
        queue: queueName,
        workerOptions: fast,
      }),
    );
    await waitFor(() => reported.length > 0, 'onError', 30_000);
    await worker.close();

    expect(reported).toHaveLength(1);
    expect(reported[0]!.code).toBe('handler_failed');
    expect(reported[0]!.event.id).toBe(id);
    expect(reported[0]!.errors[0]).toMatchObject({
      name: 'UnrecoverableError',
      message: 'job stalled more than allowable limit',
    });
    expect(runs).toBe(0);
    expect(await (await queue.getJob(id))?.getState()).toBe('failed');
    expect(await store.claim(id, 'probe', 1000)).toBe('claimed');
  });
});
