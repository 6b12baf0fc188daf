import { createWorker } from '@sms-webhooks/bullmq';
import { createTestDelivery } from '@sms-webhooks/core';
import { type RedisServer, startRedisServer } from '@sms-webhooks/test-helpers/redis-server';
import type { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { captureLogger, closer, connectionOf, redisStore, secret, waitFor } from './helpers.js';
import { queueSetUp, workerReceiver } from './queue-set-up.js';

const json = (r: { body: string }) => JSON.parse(r.body);
const c = closer();
const servers: RedisServer[] = [];

async function server(): Promise<RedisServer> {
  const s = await startRedisServer({ local: true });
  servers.push(s);
  return s;
}

afterEach(async () => {
  await c.closeAll();
  for (const s of servers.splice(0)) await s.stop();
});

/** The worker process, started now: the handlers it ran and its log, once the event's job finished. */
async function runJob(storeRedis: RedisServer, queueRedis: RedisServer, queue: Queue, id: string) {
  const handled: string[] = [];
  const workerSide = await workerReceiver({ url: storeRedis.url, closer: c });
  workerSide.on('message.delivered', (event) => {
    handled.push(event.id);
  });
  const workerLogger = captureLogger();
  c.add(
    createWorker(workerSide, {
      connection: connectionOf(queueRedis.url),
      queue: queue.name,
      logger: workerLogger,
    }),
  );
  await waitFor(async () => (await queue.getJob(id))?.finishedOn, 'the job to finish');
  return { handled, workerLogger };
}

describe('Redis down at enqueue', () => {
  it("answers 503 while the queue's Redis is down, and the service's retry gets the event in once it is back", async () => {
    const storeRedis = await server();
    const queueRedis = await server();
    const store = await redisStore(storeRedis.url, c);
    const { queue, receiver, logger } = await queueSetUp(
      { url: queueRedis.url, closer: c },
      { store, enqueue: { timeoutMs: 1000 } },
    );
    await queue.waitUntilReady();
    const d = createTestDelivery('message.delivered', { secret });

    queueRedis.kill();
    const down = await receiver.handle({ rawBody: d.body, headers: d.headers });
    expect(down.status).toBe(503);
    expect(down.headers['retry-after']).toBe('30');
    expect(json(down).error.code).toBe('store_unavailable');
    expect(logger.text()).toMatch(new RegExp(`dispatch failed, answering 503 for ${d.event.id}`));

    await queueRedis.restart();
    // The service's retries until the event is in. Two ways are right: the add of the 503 never reached
    // Redis (refused at once), and a retry's add is answered 200; or it was sent before the connection
    // saw Redis go (answered by the time-out) and ioredis sends it again once Redis is back: that job holds
    // the 503's claim, so the retries are told 409 while it waits.
    const retried = await waitFor(async () => {
      const res = await receiver.handle({ rawBody: d.body, headers: d.headers });
      if (res.status === 200) return json(res);
      // The queue's own connection may not be back yet (it queues nothing offline): then, not yet.
      const job = res.status === 409 ? await queue.getJob(d.event.id).catch(() => undefined) : undefined;
      return job ? json(res) : undefined;
    }, 'the retry to be accepted, or the first add to land');
    expect([{ received: true }, { error: expect.objectContaining({ code: 'in_flight' }) }]).toContainEqual(
      retried,
    );

    const { handled, workerLogger } = await runJob(storeRedis, queueRedis, queue, d.event.id);
    expect(handled).toEqual([d.event.id]);
    // Either way the job completed the claim it carries: the event is done for good.
    expect(workerLogger.lines).toEqual([]);
    expect(await store.claim(d.event.id, 'probe', 1000)).toBe('completed');
  });

  it('with store and queue on one Redis: 503 while it is down, no lost event and one handler run once it is back', async () => {
    const redis = await server();
    const { queueName, store, queue, receiver } = await queueSetUp(
      { url: redis.url, closer: c },
      { enqueue: { timeoutMs: 1000 } },
    );
    const handled: string[] = [];
    const workerLogger = captureLogger();
    c.add(
      createWorker(
        {
          'message.delivered': (event) => {
            handled.push(event.id);
          },
        },
        { connection: connectionOf(redis.url), queue: queueName, store, logger: workerLogger },
      ),
    );
    await queue.waitUntilReady();
    const d = createTestDelivery('message.delivered', { secret });

    redis.kill();
    const down = await receiver.handle({ rawBody: d.body, headers: d.headers });
    expect(down.status).toBe(503);
    expect(json(down).error.code).toBe('store_unavailable');

    await redis.restart();
    await waitFor(
      async () => (await receiver.handle({ rawBody: d.body, headers: d.headers })).status === 200,
      'the retry to be accepted',
    );
    await waitFor(() => handled.length > 0, 'the worker (which lived through the outage) to run the job');
    await waitFor(async () => (await queue.getJob(d.event.id))?.finishedOn, 'the job to finish');
    expect(handled).toEqual([d.event.id]);
    expect(json(await receiver.handle({ rawBody: d.body, headers: d.headers }))).toEqual({
      received: true,
      duplicate: true,
    });
  });
});

describe('Redis slow at enqueue', () => {
  it('an add that lands after its 503 keeps its claim: retries are told 409, the job completes it, then duplicate', async () => {
    const storeRedis = await server();
    const queueRedis = await server();
    const store = await redisStore(storeRedis.url, c);
    const { queue, receiver, logger } = await queueSetUp(
      { url: queueRedis.url, closer: c },
      { store, enqueue: { timeoutMs: 300 } },
    );
    await queue.waitUntilReady();
    const admin = c.add(new Redis(queueRedis.url));
    const d = createTestDelivery('message.delivered', { secret });
    const send = () => receiver.handle({ rawBody: d.body, headers: d.headers });

    // The queue's Redis takes no writes for 2 s: the add is sent and waits there, past the 300 ms time-out.
    const pausedAt = Date.now();
    await admin.call('CLIENT', 'PAUSE', '2000', 'WRITE');
    const slow = await send();
    expect([slow.status, json(slow).error.code]).toEqual([503, 'store_unavailable']);
    expect(logger.text()).toMatch(/did not finish within 300 ms/);
    // The premise: the retry below comes while the add still waits.
    const retry = await send();
    expect(Date.now() - pausedAt, 'the retry came during the pause').toBeLessThan(2000);
    expect([retry.status, json(retry).error.code]).toEqual([409, 'in_flight']);

    // The pause ends and the add lands with the 503's claim, which the receiver kept for it.
    await waitFor(async () => (await queue.getJob(d.event.id)) !== undefined, 'the late add to land', 5000);
    await waitFor(() => /was handed off after its 503/.test(logger.text()), 'the warning', 5000);
    expect((await send()).status).toBe(409);

    const { handled, workerLogger } = await runJob(storeRedis, queueRedis, queue, d.event.id);
    expect(handled).toEqual([d.event.id]);
    // The job completed the claim it carries: no "completion was not recorded" warning, and the
    // retries from now on are duplicates.
    expect(workerLogger.lines).toEqual([]);
    expect(json(await send())).toEqual({ received: true, duplicate: true });
    expect(await store.claim(d.event.id, 'probe', 1000)).toBe('completed');
  });
});
