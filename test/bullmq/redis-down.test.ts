import { createWorker } from '@sms-webhooks/bullmq';
import { createTestDelivery } from '@sms-webhooks/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';
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

describe('Redis down at enqueue', () => {
  it("answers 503 while the queue's Redis is down, and the service's retry gets the event in once it is back", async () => {
    const storeRedis = await server();
    const queueRedis = await server();
    const store = await redisStore(storeRedis.url, c);
    const { queueName, queue, receiver, logger } = await queueSetUp(
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
    // The claim was released, so the retry is not told "in flight".
    expect(await store.claim(d.event.id, 'probe', 1)).toBe('claimed');
    await new Promise((r) => setTimeout(r, 5));

    await queueRedis.restart();
    const retried = await waitFor(async () => {
      const res = await receiver.handle({ rawBody: d.body, headers: d.headers });
      return res.status === 200 ? res : undefined;
    }, 'the retry to be accepted');
    expect(json(retried)).toEqual({ received: true });

    const handled: string[] = [];
    const workerSide = await workerReceiver({ url: storeRedis.url, closer: c });
    workerSide.on('message.delivered', (event) => {
      handled.push(event.id);
    });
    c.add(createWorker(workerSide, { connection: connectionOf(queueRedis.url), queue: queueName }));
    await waitFor(async () => (await queue.getJob(d.event.id))?.finishedOn, 'the job to finish');
    expect(handled).toEqual([d.event.id]);
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
