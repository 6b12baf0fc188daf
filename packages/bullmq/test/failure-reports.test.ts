import { createWorker } from '@sms-webhooks/bullmq';
import { createTestDelivery, type WebhookHandlerError } from '@sms-webhooks/core';
import { UnrecoverableError } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { connectionOf, secret, useRedisServer, waitFor } from './helpers.js';
import { queueSetUp, workerReceiver } from './queue-set-up.js';

const redis = useRedisServer();
const c = redis.closer;

async function setUp(attempts: number) {
  const { queueName, queue, store, receiver } = await queueSetUp(redis, {
    enqueue: { attempts, backoff: 10 },
  });
  const workerSide = await workerReceiver(redis);
  const reported: WebhookHandlerError[] = [];
  workerSide.onError((error) => {
    reported.push(error);
  });
  const d = createTestDelivery('message.delivered', { secret });
  const deliver = async () =>
    expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
  return { queueName, queue, store, workerSide, reported, deliver, id: d.event.id };
}

describe('createWorker: failures for good', () => {
  it('without an onError option, an exhausted job reaches the receiver’s onError hooks once', async () => {
    const { queueName, queue, store, workerSide, reported, deliver, id } = await setUp(3);
    let runs = 0;
    workerSide.on('message.delivered', () => {
      runs++;
      throw new Error('downstream is down');
    });
    const worker = c.add(createWorker(workerSide, { connection: connectionOf(redis.url), queue: queueName }));
    await deliver();

    await waitFor(() => reported.length > 0, 'onError');
    await worker.close();
    expect(runs).toBe(3);
    expect(reported).toHaveLength(1);
    expect(reported[0]!.event.id).toBe(id);
    expect(reported[0]!.errors.map((e) => (e as Error).message)).toEqual(['downstream is down']);
    expect(await (await queue.getJob(id))?.getState()).toBe('failed');
    expect(await store.claim(id, 'probe', 1000)).toBe('claimed');
  });

  it('a handler throwing UnrecoverableError is not retried, and is reported once with the handler error', async () => {
    const { queueName, queue, store, workerSide, reported, deliver, id } = await setUp(5);
    let runs = 0;
    workerSide.on('message.delivered', () => {
      runs++;
      throw new UnrecoverableError('the message no longer exists');
    });
    const viaOption: unknown[] = [];
    const worker = c.add(
      createWorker(workerSide, {
        connection: connectionOf(redis.url),
        queue: queueName,
        onError: (error) => viaOption.push(error),
      }),
    );
    await deliver();

    await waitFor(() => viaOption.length > 0, 'onError');
    await worker.close();
    expect(runs).toBe(1);
    expect(viaOption).toHaveLength(1);
    expect(viaOption[0]).toMatchObject({ code: 'handler_failed', event: { id } });
    // An explicit onError replaces the receiver's hooks rather than adding to them.
    expect(reported).toEqual([]);
    const job = await queue.getJob(id);
    expect([await job?.getState(), job?.attemptsMade]).toEqual(['failed', 1]);
    expect(await store.claim(id, 'probe', 1000)).toBe('claimed');
  });
});
