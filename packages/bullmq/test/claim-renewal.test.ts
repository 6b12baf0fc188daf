import { createWorker } from '@sms-webhooks/bullmq';
import { createTestDelivery, type Receiver } from '@sms-webhooks/core';
import type { RedisStore } from '@sms-webhooks/redis';
import { deferred, sleep } from '@sms-webhooks/test-helpers';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { captureLogger, connectionOf, secret, useRedisServer, waitFor } from './helpers.js';
import { queueSetUp } from './queue-set-up.js';
import { spawnHangingWorker } from './worker-process.js';

// Issue 14, point 1: a job that runs longer than the receiver's leaseMs must keep its dedupe claim.
// Renewed every 667 ms, a 2 s lease outlives an event loop stalled for a second on a loaded machine.
const LEASE_MS = 2000;
const fast = { lockDuration: 2000, stalledInterval: 500, maxStalledCount: 1 };
const redis = useRedisServer();
const c = redis.closer;

type Delivery = { body: string; headers: Record<string, string> };

async function answer(receiver: Receiver, d: Delivery): Promise<string> {
  const res = await receiver.handle({ rawBody: d.body, headers: d.headers });
  const body = JSON.parse(res.body) as { duplicate?: boolean; error?: { code: string } };
  return `${res.status} ${body.error?.code ?? (body.duplicate ? 'duplicate' : 'received')}`;
}

describe('the worker renews the claim of a job that outlasts the lease', () => {
  it('a job running 2.5 leases: redeliveries every 0.5 s get 409 while it runs, then duplicate; one run', {
    timeout: 45_000,
  }, async () => {
    // removeOnComplete: true, so no kept BullMQ job hides a second run: only the dedupe store stops it.
    const {
      queueName,
      store,
      receiver,
      logger: receiverLog,
    } = await queueSetUp(redis, { leaseMs: LEASE_MS, enqueue: { removeOnComplete: true } });
    const logger = captureLogger();
    let running = 0;
    let most = 0;
    let startedAt = 0;
    const finished = deferred();
    const runs: string[] = [];
    c.add(
      createWorker(
        {
          // The first run lasts until the redeliveries below are done, however long they take; a second
          // run (the defect this test is for) returns at once.
          'message.delivered': async (event) => {
            most = Math.max(most, ++running);
            if (startedAt === 0) {
              startedAt = Date.now();
              await finished.promise;
            }
            running--;
            runs.push(event.id);
          },
        },
        { connection: connectionOf(redis.url), queue: queueName, store, leaseMs: LEASE_MS, logger },
      ),
    );

    const d = createTestDelivery('message.delivered', { secret });
    expect(await answer(receiver, d)).toBe('200 received');
    await waitFor(() => running === 1, 'the job to start');
    const during: string[] = [];
    const after: string[] = [];
    // The service's retries, sped up: 0.5 s apart, through 2.5 leases of the job and up to 3 s past it.
    while (Date.now() - startedAt < 2.5 * LEASE_MS) {
      await sleep(500);
      during.push(await answer(receiver, d));
    }
    finished.resolve();
    await waitFor(() => running === 0, 'the job to end');
    for (let i = 0; i < 6 && after.at(-1) !== '200 duplicate'; i++) {
      await sleep(500);
      after.push(await answer(receiver, d));
    }
    expect(during.length).toBeGreaterThanOrEqual(4);
    expect(new Set(during)).toEqual(new Set(['409 in_flight']));
    // Right after the handler ends its completion may still be on its way (409); then it is recorded.
    expect(after.at(-1)).toBe('200 duplicate');
    expect(after.every((a) => a === '409 in_flight' || a === '200 duplicate')).toBe(true);

    await sleep(LEASE_MS + 500); // past any lease a stray redelivery could have taken
    expect(await answer(receiver, d)).toBe('200 duplicate');
    expect(runs).toEqual([d.event.id]);
    expect(most).toBe(1);
    expect(logger.lines).toEqual([]);
    expect(receiverLog.lines.filter((l) => l.startsWith('error'))).toEqual([]);
  });

  it('a worker killed mid-job stops renewing: the claim runs out within the lease, the job runs once elsewhere', {
    timeout: 60_000,
  }, async () => {
    const { queueName, store, receiver } = await queueSetUp(redis, { leaseMs: LEASE_MS });
    const d = createTestDelivery('message.delivered', { secret });
    const id = d.event.id;
    const child = await spawnHangingWorker({
      url: redis.url,
      queue: queueName,
      workerOptions: fast,
      leaseMs: LEASE_MS,
    });
    try {
      // Enqueued once the worker process is up: a queue wait longer than the lease is another case (README).
      await child.ready;
      expect(await answer(receiver, d)).toBe('200 received');
      expect(await child.started).toBe(id);
      // The other process renews: redeliveries for 1.5 leases are all refused.
      const startedAt = Date.now();
      while (Date.now() - startedAt < 1.5 * LEASE_MS) {
        await sleep(500);
        expect(await answer(receiver, d)).toBe('409 in_flight');
      }
    } finally {
      await child.kill();
    }

    const raw = c.add(new Redis(redis.url));
    const key = (store as RedisStore).keyFor(id);
    // Once the renewer is dead the claim has at most one lease left (-2: it has already run out), and it
    // runs out; a renewer still alive would keep it forever.
    expect(Number(await raw.pttl(key))).toBeLessThanOrEqual(LEASE_MS);
    await waitFor(async () => (await raw.exists(key)) === 0, 'the claim to run out', 3 * LEASE_MS);

    const runs: string[] = [];
    const logger = captureLogger();
    const worker = c.add(
      createWorker(
        { 'message.delivered': (event) => void runs.push(event.id) },
        {
          connection: connectionOf(redis.url),
          queue: queueName,
          store,
          leaseMs: LEASE_MS,
          workerOptions: fast,
          logger,
        },
      ),
    );
    const completed: string[] = [];
    worker.on('completed', (job) => completed.push(job.id!));
    await waitFor(() => completed.length > 0, 'the stalled job to complete elsewhere', 30_000);
    expect(runs).toEqual([id]);
    expect(await answer(receiver, d)).toBe('200 duplicate');
    expect(logger.lines).toEqual([]);
  });
});
