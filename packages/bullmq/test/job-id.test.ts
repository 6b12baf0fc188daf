import { createWorker, eventIdOfJob, jobIdFor } from '@sms-webhooks/bullmq';
import { createTestDelivery, MemoryStore } from '@sms-webhooks/core';
import { describe, expect, it } from 'vitest';
import { captureLogger, connectionOf, queueReceiver, secret, useRedisServer, waitFor } from './helpers.js';
import { queueSetUp } from './queue-set-up.js';

describe('jobIdFor', () => {
  it('leaves plain ids alone, escapes ":" and "%" reversibly, and hashes long ids', () => {
    expect(jobIdFor('evt_01HXYZ')).toBe('evt_01HXYZ');
    expect(jobIdFor('evt_a:b')).toBe('evt_a%3Ab');
    expect(jobIdFor('evt_a:b:c')).toBe('evt_a%3Ab%3Ac');
    for (const id of ['evt_a:b', 'evt_%3A', 'evt_50%:x%25', 'evt_ünï:cödé']) {
      expect(jobIdFor(id)).not.toContain(':');
      expect(eventIdOfJob(jobIdFor(id))).toBe(id);
    }
    expect(jobIdFor('evt_%3A')).not.toBe(jobIdFor('evt_:'));
    const long = `evt_${'x:'.repeat(2500)}`;
    expect(jobIdFor(long)).toMatch(/^sha256-[0-9a-f]{64}$/);
    expect(jobIdFor(long)).toBe(jobIdFor(long));
    expect(jobIdFor(`${long}y`)).not.toBe(jobIdFor(long));
    expect(eventIdOfJob(jobIdFor(long))).toBeUndefined();
  });
});

describe('event ids BullMQ would refuse as job ids', () => {
  const redis = useRedisServer();
  const c = redis.closer;

  it.each([
    ['with a colon', 'evt_a:b'],
    ['of 5 KB', `evt_${'k:'.repeat(2560)}`],
  ])('an id %s is queued once, run with its original id and completed in the store', async (_n, id) => {
    const { queueName, store, queue, receiver } = await queueSetUp(redis);
    const seen: string[] = [];
    c.add(
      createWorker(
        { 'message.delivered': (event) => void seen.push(event.id) },
        { connection: connectionOf(redis.url), queue: queueName, store, logger: captureLogger() },
      ),
    );
    const d = createTestDelivery('message.delivered', { secret, id });

    const res = await receiver.handle({ rawBody: d.body, headers: d.headers });
    expect([res.status, res.body]).toEqual([200, '{"received":true}']);
    const job = await waitFor(async () => {
      const j = await queue.getJob(jobIdFor(id));
      return j?.finishedOn ? j : undefined;
    }, 'the job to finish');
    expect(job.data.event.id).toBe(id);
    expect(await job.getState()).toBe('completed');
    expect(seen).toEqual([id]);
    expect(await store.claim(id, 'probe', 1000)).toBe('completed');

    // A receiver that forgot the event still cannot queue it twice: the encoded id is the same.
    const { receiver: forgetful } = queueReceiver(c, { url: redis.url, queueName, store: new MemoryStore() });
    expect((await forgetful.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
    expect(await queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed')).toMatchObject({
      completed: 1,
      waiting: 0,
    });
  });
});
