import { createWorker, enqueueTo, type WebhookJob } from '@sms-webhooks/bullmq';
import { createTestDelivery, MemoryStore, type WebhookHandlerError } from '@sms-webhooks/core';
import { describe, expect, it } from 'vitest';
import {
  captureLogger,
  connectionOf,
  queueReceiver,
  redisStore,
  secret,
  useRedisServer,
  waitFor,
} from './helpers.js';
import { queueSetUp, workerReceiver } from './queue-set-up.js';

const json = (r: { body: string }) => JSON.parse(r.body);

const redis = useRedisServer();
const c = redis.closer;

describe('enqueue: receiver with dispatch: enqueueTo(queue)', () => {
  it('answers 200 only with the job in Redis, job id = event id, and a duplicate delivery makes no second job', async () => {
    const { queueName, queue, receiver } = await queueSetUp(redis);
    const d = createTestDelivery('message.delivered', { secret, attempt: 2 });

    const res = await receiver.handle({ rawBody: d.body, headers: d.headers });
    expect([res.status, json(res)]).toEqual([200, { received: true }]);
    const job = await queue.getJob(d.event.id);
    expect(job?.name).toBe('message.delivered');
    expect(job?.data.event).toEqual(d.event);
    expect(job?.data.attempt).toBe(2);
    expect(job?.data.claim?.key).toBe(d.event.id);
    expect(job?.opts.attempts).toBe(8);

    // No worker yet: the claim is held, so the redelivery is told to come back later.
    const again = await receiver.handle({ rawBody: d.body, headers: d.headers });
    expect(again.status).toBe(409);

    // Even a receiver whose store lost the record (a fresh MemoryStore) cannot make a second job.
    const forgetful = queueReceiver(c, { url: redis.url, queueName, store: new MemoryStore() });
    const third = await forgetful.receiver.handle({ rawBody: d.body, headers: d.headers });
    expect(third.status).toBe(200);
    const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed');
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(1);
  });

  it('after the worker has run it, a redelivery is answered 200 duplicate, and the handler ran once', async () => {
    const { queueName, queue, receiver } = await queueSetUp(redis);
    const workerSide = await workerReceiver(redis);
    const seen: string[] = [];
    workerSide.on('message.delivered', (event, ctx) => {
      seen.push(`${event.id} ${ctx.attempt} ${ctx.receivedAt instanceof Date}`);
    });
    const worker = c.add(createWorker(workerSide, { connection: connectionOf(redis.url), queue: queueName }));
    const d = createTestDelivery('message.delivered', { secret });

    expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
    await waitFor(async () => (await queue.getJob(d.event.id))?.finishedOn, 'the job to finish');
    expect(await (await queue.getJob(d.event.id))?.getState()).toBe('completed');
    expect(json(await receiver.handle({ rawBody: d.body, headers: d.headers }))).toEqual({
      received: true,
      duplicate: true,
    });
    expect(seen).toEqual([`${d.event.id} 1 true`]);
    expect(await queue.getCompletedCount()).toBe(1);
    expect(worker.isRunning()).toBe(true);
  });

  it('ignored types and refused deliveries never reach the queue', async () => {
    const { queue, receiver } = await queueSetUp(redis, { store: new MemoryStore() });
    const ignored = createTestDelivery('sms.completed', { secret });
    expect(json(await receiver.handle({ rawBody: ignored.body, headers: ignored.headers }))).toEqual({
      received: true,
      ignored: true,
    });
    const forged = createTestDelivery('message.delivered', { secret: 'whsec_notours0123456789abcdef' });
    expect((await receiver.handle({ rawBody: forged.body, headers: forged.headers })).status).toBe(400);
    expect(await queue.count()).toBe(0);
  });
});

describe('createWorker: retries, completion, exhaustion', () => {
  it('a handler failing twice then succeeding runs three times and completes the event once', async () => {
    const { queueName, store, queue, receiver } = await queueSetUp(redis, {
      enqueue: { attempts: 5, backoff: { type: 'exponential', delay: 20 } },
    });
    let calls = 0;
    const errors: unknown[] = [];
    const completed: string[] = [];
    const worker = c.add(
      createWorker(
        {
          'message.delivered': async () => {
            calls++;
            if (calls <= 2) throw new Error(`flaky downstream #${calls}`);
          },
        },
        {
          connection: connectionOf(redis.url),
          queue: queueName,
          store: await redisStore(redis.url, c),
          onError: (e) => errors.push(e),
          logger: captureLogger(),
        },
      ),
    );
    worker.on('completed', (job) => completed.push(job.id!));
    const d = createTestDelivery('message.delivered', { secret });
    expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);

    await waitFor(() => completed.length > 0, 'the job to complete');
    const job = await queue.getJob(d.event.id);
    expect(calls).toBe(3);
    expect(completed).toEqual([d.event.id]);
    expect(job?.attemptsMade).toBe(3);
    expect(errors).toEqual([]);
    // The dedupe record is completed: another claim sees it as processed.
    expect(await store.claim(d.event.id, 'probe', 1000)).toBe('completed');
  });

  it('a job failing its last attempt goes to onError once, stays in the failed set and frees the dedupe key', async () => {
    const { queueName, store, queue, receiver } = await queueSetUp(redis, {
      enqueue: { attempts: 3, backoff: 10 },
    });
    const workerSide = await workerReceiver(redis);
    let calls = 0;
    workerSide.on('message.delivered', () => {
      calls++;
      throw new Error('always down');
    });
    const reported: Array<{ error: WebhookHandlerError; job: WebhookJob }> = [];
    c.add(
      createWorker(workerSide, {
        connection: connectionOf(redis.url),
        queue: queueName,
        onError: (error, job) => {
          reported.push({ error: error as WebhookHandlerError, job });
        },
      }),
    );
    const d = createTestDelivery('message.delivered', { secret });
    await receiver.handle({ rawBody: d.body, headers: d.headers });

    await waitFor(() => reported.length > 0, 'onError');
    await waitFor(async () => (await queue.getJob(d.event.id))?.finishedOn, 'the job to be failed');
    expect(calls).toBe(3);
    expect(reported).toHaveLength(1);
    expect(reported[0]!.error.code).toBe('handler_failed');
    expect(reported[0]!.error.event.id).toBe(d.event.id);
    expect(reported[0]!.job.id).toBe(d.event.id);
    expect(await (await queue.getJob(d.event.id))?.getState()).toBe('failed');
    expect(await store.claim(d.event.id, 'probe', 1000)).toBe('claimed');
  });

  // In-process and quick; worker-crash.test.ts does the same with a worker process killed by SIGKILL.
  it('a worker force-closed mid-job has its job picked up again by another worker (stalled-job recovery)', async () => {
    const { queueName, store, queue, receiver } = await queueSetUp(redis);
    const fast = { lockDuration: 1000, stalledInterval: 300, maxStalledCount: 2 };
    const runs: string[] = [];
    let started!: () => void;
    const firstStarted = new Promise<void>((r) => {
      started = r;
    });
    const dying = createWorker(
      {
        'message.delivered': () => {
          runs.push('first worker');
          started();
          return new Promise(() => {}); // the process dies before this ever settles
        },
      },
      { connection: connectionOf(redis.url), queue: queueName, workerOptions: fast, logger: captureLogger() },
    );
    const d = createTestDelivery('message.delivered', { secret });
    await receiver.handle({ rawBody: d.body, headers: d.headers });
    await firstStarted;
    // Force-close: no lock renewal, no completion, the job is left active as after a crash.
    await dying.close(true);
    expect(await (await queue.getJob(d.event.id))?.getState()).toBe('active');

    c.add(
      createWorker(
        {
          'message.delivered': () => {
            runs.push('second worker');
          },
        },
        {
          connection: connectionOf(redis.url),
          queue: queueName,
          store,
          workerOptions: fast,
          logger: captureLogger(),
        },
      ),
    );
    await waitFor(async () => (await queue.getJob(d.event.id))?.finishedOn, 'the recovered job to finish');
    expect(await (await queue.getJob(d.event.id))?.getState()).toBe('completed');
    expect(runs).toEqual(['first worker', 'second worker']);
    expect(await store.claim(d.event.id, 'probe', 1000)).toBe('completed');
  });

  it('refuses bad arguments with a TypeError that says what to pass', () => {
    expect(() => createWorker(null as never, { connection: connectionOf(redis.url) })).toThrow(
      /needs a receiver .* or a map of handlers/,
    );
    expect(() => createWorker({}, {} as never)).toThrow(/needs `connection`/);
    expect(() =>
      createWorker({ 'message.sent': 'nope' } as never, { connection: connectionOf(redis.url) }),
    ).toThrow(/handler for `message.sent` must be a function/);
    expect(() => enqueueTo({} as never)).toThrow(/enqueueTo\(queue\) needs a BullMQ Queue/);
    expect(() => enqueueTo({ add: async () => ({}) } as never, { attempts: 0 })).toThrow(
      /`attempts` must be a positive integer/,
    );
    expect(() => enqueueTo({ add: async () => ({}) } as never, { timeoutMs: 1.5 })).toThrow(/`timeoutMs`/);
  });
});
