import { createReceiver, createTestDelivery, type WebhookHandlerError } from '@sms-webhooks/core';
import { createWorker, findFailed, jobIdFor, listFailed, replayFailed } from '@sms-webhooks/pg-boss';
import { describe, expect, it } from 'vitest';
import { queueSetUp } from './queue-set-up.js';
import {
  type Boss,
  captureLogger,
  handOffReceiver,
  MAJORS,
  queueName,
  secret,
  useDatabase,
  waitFor,
} from './set-up.js';

describe.each(MAJORS)('$label', (major) => {
  const db = useDatabase('pgboss_failed_jobs', major);

  /** Two quick attempts, then the failed state. */
  const quick = { attempts: 2, retryDelaySeconds: 0, retryBackoff: false };

  async function failedEvent(boss: Boss, store: Awaited<ReturnType<typeof db.store>>, queue: string) {
    const { receiver } = handOffReceiver(boss, store, { queue, enqueue: quick });
    const d = createTestDelivery('message.delivered', { secret });
    expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
    // The worker side: handlers from a receiver, whose onError hooks get the final failure.
    const workerSide = createReceiver({ secret, store, logger: captureLogger() });
    let healthy = false;
    const runs: string[] = [];
    workerSide.on('message.delivered', (event) => {
      runs.push(event.id);
      if (!healthy) throw new Error('downstream is down');
    });
    const reported: WebhookHandlerError[] = [];
    workerSide.onError((error) => {
      reported.push(error);
    });
    const worker = await createWorker(workerSide, boss, { queue, pollingIntervalSeconds: 0.5 });
    db.onCleanup(() => worker.close());
    const state = async () => (await boss.getJobById(queue, jobIdFor(d.event.id)))?.state;
    await waitFor(async () => (await state()) === 'failed', 'the job to fail for good');
    return {
      event: d.event,
      receiver,
      runs,
      reported,
      state,
      heal() {
        healthy = true;
      },
    };
  }

  describe('failed jobs: listFailed and replayFailed', () => {
    it('a job whose last attempt failed is reported once, frees its claim, and is listed', async () => {
      const { boss, store, queue } = await queueSetUp(db);
      const { event, runs, reported } = await failedEvent(boss, store, queue);
      expect(runs).toEqual([event.id, event.id]);
      await waitFor(() => reported.length > 0, 'onError');
      expect(reported).toHaveLength(1);
      expect(reported[0]!.event.id).toBe(event.id);
      expect(await store.claim(event.id, 'probe', 1000)).toBe('claimed');
      await store.release(event.id, 'probe');

      const failed = await listFailed(boss, { queue });
      expect(failed).toEqual([
        {
          eventId: event.id,
          type: 'message.delivered',
          jobId: jobIdFor(event.id),
          attempts: 2,
          failedAt: expect.any(Date),
          error: expect.stringMatching(/downstream is down|handler/),
          archived: false,
        },
      ]);
      expect(await listFailed(boss, { queue: queueName() })).toEqual([]);
      expect(await findFailed(boss, event.id, { queue })).toEqual(failed[0]);
      expect(await findFailed(boss, 'evt_never_queued', { queue })).toBeUndefined();
      expect(await findFailed(boss, event.id, { queue: queueName() })).toBeUndefined();
    });

    it('a replay runs the event once, completes its record; replaying again is refused', async () => {
      const { boss, store, queue } = await queueSetUp(db);
      const { event, runs, state, heal, receiver } = await failedEvent(boss, store, queue);
      heal();
      // A redelivery after the final failure finds the job: 200, and no second job.
      const d = createTestDelivery('message.delivered', { secret, id: event.id, attempt: 2 });
      expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
      expect(await state()).toBe('failed');

      // Two replays at once: the failed job's row lock lets one through.
      const results = await Promise.allSettled([
        replayFailed(boss, event.id, { store, queue }),
        replayFailed(boss, event.id, { store, queue }),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled').map((r) => r.value.status)).toEqual([
        'replayed',
      ]);
      expect(results.find((r) => r.status === 'rejected')).toMatchObject({
        reason: { code: 'ERR_SMS_PGBOSS_NOT_FAILED' },
      });
      await waitFor(async () => (await state()) === 'completed', 'the replayed job to complete');
      expect(runs).toEqual([event.id, event.id, event.id]);
      expect(await store.claim(event.id, 'probe', 1000)).toBe('completed');
      expect(await listFailed(boss, { queue })).toEqual([]);
      await expect(replayFailed(boss, event.id, { store, queue })).rejects.toMatchObject({
        code: 'ERR_SMS_PGBOSS_NOT_FAILED',
      });
      await expect(replayFailed(boss, 'evt_never_seen', { store, queue })).rejects.toMatchObject({
        code: 'ERR_SMS_PGBOSS_NO_JOB',
      });
    });

    it('an event completed meanwhile is not run again: the replay says completed and the job stays failed', async () => {
      const { boss, store, queue } = await queueSetUp(db);
      const { event, runs, state } = await failedEvent(boss, store, queue);
      expect(await store.claim(event.id, 'elsewhere', 60_000)).toBe('claimed');
      expect(await store.complete(event.id, 'elsewhere', 60_000)).toBe(true);
      expect(await replayFailed(boss, event.id, { store, queue })).toEqual({
        eventId: event.id,
        jobId: jobIdFor(event.id),
        status: 'completed',
      });
      expect(await state()).toBe('failed');
      expect(runs).toHaveLength(2);
    });

    // pg-boss 12 has no archive: a failed job stays in its job table (the tests above).
    it.runIf(major.major === 10)(
      'a failed job moved to the archive is still listed and replayed',
      async () => {
        const { boss, store, queue } = await queueSetUp(db);
        const { event, heal, state } = await failedEvent(boss, store, queue);
        heal();
        // Past the archive interval (12 h by default), as pg-boss's maintenance would find it.
        await db
          .pool()
          .query("UPDATE pgboss.job SET completed_on = now() - interval '1 day' WHERE name = $1", [queue]);
        await boss.archive();
        expect(await state()).toBeUndefined();
        expect(await listFailed(boss, { queue })).toMatchObject([{ eventId: event.id, archived: true }]);
        expect(await replayFailed(boss, event.id, { store, queue })).toMatchObject({ status: 'replayed' });
        await waitFor(async () => (await state()) === 'completed', 'the replayed job to complete');
        expect(await listFailed(boss, { queue })).toEqual([]);
      },
    );
  });
});
