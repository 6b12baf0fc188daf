import { createTestDelivery } from '@sms-webhooks/core';
import { jobIdFor } from '@sms-webhooks/pg-boss';
import { spawnFixture } from '@sms-webhooks/test-helpers/fixture-process';
import { describe, expect, it } from 'vitest';
import { beforeJobInsert, jobState, queueSetUp } from './queue-set-up.js';
import { handOffReceiver, MAJORS, secret, useDatabase, waitFor } from './set-up.js';

const FIXTURE = new URL('./fixtures/one-delivery.ts', import.meta.url);

describe.each(MAJORS)('$label', (major) => {
  const db = useDatabase('pgboss_receiver_crash', major);

  describe('a receiving process killed with SIGKILL mid-hand-off', () => {
    it('commits neither: no job, and only its short claim, which runs out; the redelivery is queued once', {
      timeout: 60_000,
    }, async () => {
      const { boss, store, queue } = await queueSetUp(db);
      const pool = db.pool();
      // The insert stalls 2 s inside the hand-off's transaction, so the kill lands while it is open.
      const dropTrigger = await beforeJobInsert(pool, queue, 'stall', 'PERFORM pg_sleep(2); RETURN NEW;');
      const d = createTestDelivery('message.delivered', { secret });
      const child = await spawnFixture(FIXTURE, {
        DATABASE_URL: db.url,
        QUEUE: queue,
        SECRET: secret,
        LEASE_MS: '1500',
        PGBOSS_MODULE: major.module,
        DELIVERY: JSON.stringify({ body: d.body, headers: d.headers }),
      });
      try {
        const inserting = async () =>
          (
            await pool.query(
              "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE '%INSERT INTO pgboss.job%' AND state = 'active' AND pid <> pg_backend_pid()",
            )
          ).rows[0].n > 0;
        await waitFor(inserting, 'the hand-off to be inserting its job', 30_000);
      } finally {
        await child.kill();
      }
      expect(child.messages.filter((message) => 'answered' in message)).toEqual([]);
      // The backend finishes its statement, finds its client gone, and rolls back.
      await waitFor(
        async () =>
          (
            await pool.query(
              "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE '%INSERT INTO pgboss.job%' AND pid <> pg_backend_pid()",
            )
          ).rows[0].n === 0,
        'the killed transaction to end',
        30_000,
      );
      expect(await boss.getJobById(queue, jobIdFor(d.event.id))).toBeNull();
      const { rows } = await pool.query(
        "SELECT state, expires_at < now() + interval '1 minute' AS short FROM sms_webhook_events WHERE key = $1",
        [d.event.id],
      );
      // The receiver's own claim (1.5 s lease), never the hold that commits only with a job.
      expect(rows).toEqual([{ state: 'in-flight', short: true }]);

      await dropTrigger();
      const { receiver } = handOffReceiver(boss, store, { queue });
      await waitFor(
        async () => (await receiver.handle({ rawBody: d.body, headers: d.headers })).status === 200,
        'a redelivery to be accepted once the claim ran out',
        30_000,
      );
      expect(await jobState(boss, queue, d.event.id)).toBe('created');
      const count = await pool.query('SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1', [queue]);
      expect(count.rows[0].n).toBe(1);
    });
  });
});
