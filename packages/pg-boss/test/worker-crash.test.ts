import { createTestDelivery } from '@sms-webhooks/core';
import { jobIdFor } from '@sms-webhooks/pg-boss';
import { describe, expect, it } from 'vitest';
import { jobState, queueSetUp, recordingWorker, waitForJob } from './queue-set-up.js';
import { fastBoss, handOffReceiver, MAJORS, secret, useDatabase } from './set-up.js';
import { spawnHangingWorker } from './worker-process.js';

describe.each(MAJORS)('$label', (major) => {
  const db = useDatabase('pgboss_worker_crash', major);

  describe('worker processes killed with SIGKILL mid-job', () => {
    it('the job times out, goes back to the queue, and another worker runs it once and completes the record', {
      timeout: 60_000,
    }, async () => {
      const { boss, store, queue } = await queueSetUp(db, fastBoss(major));
      // One attempt's run is cut off after 2 s: what pg-boss does with a job whose worker died.
      const { receiver } = handOffReceiver(boss, store, {
        queue,
        enqueue: { expireInSeconds: 2, retryDelaySeconds: 0, retryBackoff: false },
      });
      const d = createTestDelivery('message.delivered', { secret });
      expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);

      const child = await spawnHangingWorker({ url: db.url, queue, module: major.module });
      try {
        expect(await child.started).toBe(d.event.id);
      } finally {
        await child.kill();
      }
      expect(await jobState(boss, queue, d.event.id)).toBe('active');
      // Meanwhile the event stays claimed: a redelivery is 409, not a second run.
      expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(409);

      const runs = await recordingWorker(db, boss, { queue, store });
      await waitForJob(boss, queue, d.event.id, 'completed', 'the recovered job to complete', 30_000);
      expect(runs).toEqual([d.event.id]);
      const job = await boss.getJobById(queue, jobIdFor(d.event.id));
      expect(job?.retryCount).toBe(1);
      expect(await store.claim(d.event.id, 'probe', 1000)).toBe('completed');
    });

    it('a job whose every attempt died is failed by pg-boss; replayFailed takes over its stale claim and runs it once', {
      timeout: 60_000,
    }, async () => {
      const { replayFailed } = await import('@sms-webhooks/pg-boss');
      const { boss, store, queue } = await queueSetUp(db, fastBoss(major));
      const { receiver } = handOffReceiver(boss, store, {
        queue,
        enqueue: { attempts: 1, expireInSeconds: 1 },
      });
      const d = createTestDelivery('message.delivered', { secret });
      expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
      const child = await spawnHangingWorker({ url: db.url, queue, module: major.module });
      try {
        expect(await child.started).toBe(d.event.id);
      } finally {
        await child.kill();
      }
      await waitForJob(boss, queue, d.event.id, 'failed', 'pg-boss to fail the timed-out job', 30_000);
      // No worker saw the failure, so the hand-off's claim is still held.
      expect(await store.claim(d.event.id, 'probe', 1000)).toBe('in-flight');

      expect(await replayFailed(boss, d.event.id, { store, queue })).toMatchObject({ status: 'replayed' });
      const runs = await recordingWorker(db, boss, { queue, store });
      await waitForJob(boss, queue, d.event.id, 'completed', 'the replayed job to complete', 30_000);
      expect(runs).toEqual([d.event.id]);
      expect(await store.claim(d.event.id, 'probe', 1000)).toBe('completed');
    });
  });
});
