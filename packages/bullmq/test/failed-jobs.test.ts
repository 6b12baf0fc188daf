import { createWorker, findFailed, jobIdFor, listFailed, replayFailed } from '@sms-webhooks/bullmq';
import { createTestDelivery } from '@sms-webhooks/core';
import { describe, expect, it } from 'vitest';
import { connectionOf, secret, useRedisServer, waitFor } from './helpers.js';
import { queueSetUp, workerReceiver } from './queue-set-up.js';

const redis = useRedisServer();
const c = redis.closer;

/** An event whose two attempts failed: in the failed set, its claim released by the worker. */
async function failedEvent() {
  const { queueName, queue, store, receiver } = await queueSetUp(redis, {
    enqueue: { attempts: 2, backoff: 10 },
  });
  const workerSide = await workerReceiver(redis);
  let healthy = false;
  const runs: string[] = [];
  workerSide.on('message.delivered', (event) => {
    runs.push(event.id);
    if (!healthy) throw new Error('downstream is down');
  });
  let reports = 0;
  workerSide.onError(() => {
    reports++;
  });
  c.add(createWorker(workerSide, { connection: connectionOf(redis.url), queue: queueName }));
  const d = createTestDelivery('message.delivered', { secret });
  expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
  const id = d.event.id;
  const state = async () => (await queue.getJob(jobIdFor(id)))?.getState();
  await waitFor(() => reports > 0, 'the final failure');
  return {
    queue,
    store,
    receiver,
    delivery: d,
    id,
    runs,
    state,
    heal() {
      healthy = true;
    },
  };
}

describe('bullmq failed jobs: listFailed and replayFailed', () => {
  it('findFailed reads the failed job of one event, and nothing for another event', async () => {
    const { queue, id } = await failedEvent();
    expect(await findFailed(queue, id)).toEqual((await listFailed(queue))[0]);
    expect((await findFailed(queue, id))?.attempts).toBe(2);
    expect(await findFailed(queue, 'evt_never_queued')).toBeUndefined();
  });

  it('lists an exhausted job with its attempts and last error', async () => {
    const { queue, id } = await failedEvent();
    expect(await listFailed(queue)).toEqual([
      {
        eventId: id,
        type: 'message.delivered',
        jobId: jobIdFor(id),
        attempts: 2,
        failedAt: expect.any(Date),
        error: expect.stringMatching(/downstream is down|handler/),
      },
    ]);
  });

  it('a replay runs the event once and completes its record; two replays at once run it once', async () => {
    const { queue, store, id, runs, state, heal } = await failedEvent();
    heal();
    const results = await Promise.all([
      replayFailed(queue, id, { store }),
      replayFailed(queue, id, { store }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['in-flight', 'replayed']);
    await waitFor(async () => (await state()) === 'completed', 'the replayed job to complete');
    expect(runs).toEqual([id, id, id]);
    expect(await store.claim(id, 'probe', 1000)).toBe('completed');
    expect(await listFailed(queue)).toEqual([]);
    await expect(replayFailed(queue, id, { store })).rejects.toMatchObject({
      code: 'ERR_SMS_BULLMQ_NOT_FAILED',
    });
    await expect(replayFailed(queue, 'evt_never_seen', { store })).rejects.toMatchObject({
      code: 'ERR_SMS_BULLMQ_NO_JOB',
    });
  });

  it('a redelivery after the final failure is answered 200 and holds the claim: a replay meanwhile is in-flight and changes nothing', async () => {
    const { queue, store, receiver, delivery, id, runs, state } = await failedEvent();
    expect((await receiver.handle({ rawBody: delivery.body, headers: delivery.headers })).status).toBe(200);
    expect(await replayFailed(queue, id, { store })).toEqual({
      eventId: id,
      jobId: jobIdFor(id),
      status: 'in-flight',
    });
    expect(await state()).toBe('failed');
    expect(runs).toHaveLength(2);
  });

  it('an event completed meanwhile is not run again: the replay says completed and the job stays failed', async () => {
    const { queue, store, id, runs, state } = await failedEvent();
    expect(await store.claim(id, 'elsewhere', 60_000)).toBe('claimed');
    expect(await store.complete(id, 'elsewhere', 60_000)).toBe(true);
    expect(await replayFailed(queue, id, { store })).toEqual({
      eventId: id,
      jobId: jobIdFor(id),
      status: 'completed',
    });
    expect(await state()).toBe('failed');
    expect(runs).toHaveLength(2);
  });

  it('a replay that fails again releases its claim and stays replayable', async () => {
    const { queue, store, id, runs, state, heal } = await failedEvent();
    expect((await replayFailed(queue, id, { store })).status).toBe('replayed');
    await waitFor(async () => runs.length === 4 && (await state()) === 'failed', 'the replay to fail twice');
    await waitFor(
      async () => (await store.claim(id, 'probe', 1000)) === 'claimed',
      'the replay claim to be released',
    );
    await store.release(id, 'probe');
    heal();
    expect((await replayFailed(queue, id, { store })).status).toBe('replayed');
    await waitFor(async () => (await state()) === 'completed', 'the second replay to complete');
    expect(runs).toHaveLength(5);
  });
});
