import { createWorker } from '@sms-webhooks/bullmq';
import { createTestDelivery, type Receiver } from '@sms-webhooks/core';
import type { RedisStore } from '@sms-webhooks/redis';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { sleep } from '../helpers/index.js';
import { captureLogger, connectionOf, secret, useRedisServer, waitFor } from './helpers.js';
import { queueSetUp } from './queue-set-up.js';
import { spawnHangingWorker } from './worker-process.js';

// Issue 14, point 1: a job that runs longer than the receiver's leaseMs must keep its dedupe claim.
const LEASE_MS = 1000;
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
  it('a 2.5 s job, lease 1 s: redeliveries every 0.5 s get 409 while it runs, then duplicate; one run', {
    timeout: 30_000,
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
    const runs: string[] = [];
    c.add(
      createWorker(
        {
          'message.delivered': async (event) => {
            most = Math.max(most, ++running);
            await sleep(2500);
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
    // 4 s of the service's retries, sped up: 0.5 s apart, through the job's 2.5 s and 1.5 s past it.
    for (let i = 0; i < 8; i++) {
      await sleep(500);
      const wasRunning = running > 0;
      const a = await answer(receiver, d);
      if (wasRunning && running > 0) during.push(a);
      else if (!wasRunning) after.push(a);
    }
    expect(during.length).toBeGreaterThanOrEqual(3);
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
    const child = spawnHangingWorker({
      url: redis.url,
      queue: queueName,
      workerOptions: fast,
      leaseMs: LEASE_MS,
    });
    let killedAt: number;
    try {
      // Enqueued once the worker process is up: a queue wait longer than the lease is another case (README).
      await child.ready;
      expect(await answer(receiver, d)).toBe('200 received');
      expect(await child.started).toBe(id);
      // The other process renews: 1.5 s of redeliveries, past the 1 s lease, are all refused.
      for (let i = 0; i < 3; i++) {
        await sleep(500);
        expect(await answer(receiver, d)).toBe('409 in_flight');
      }
    } finally {
      await child.kill();
      killedAt = Date.now();
    }

    const raw = c.add(new Redis(redis.url));
    await waitFor(
      async () => (await raw.exists((store as RedisStore).keyFor(id))) === 0,
      'the claim to run out',
      5000,
    );
    // A renewer still alive would keep it forever; the bound leaves room for polling on a loaded machine.
    expect(Date.now() - killedAt).toBeLessThan(2 * LEASE_MS);

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
