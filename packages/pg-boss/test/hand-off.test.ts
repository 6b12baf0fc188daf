import { createTestDelivery } from '@sms-webhooks/core';
import { createWorker, enqueueTo, jobIdFor } from '@sms-webhooks/pg-boss';
import { describe, expect, it } from 'vitest';
import { beforeJobInsert, jobState, queueSetUp, recordingWorker, waitForJob } from './queue-set-up.js';
import { captureLogger, handOffReceiver, MAJORS, secret, useDatabase, waitFor } from './set-up.js';

describe.each(MAJORS)('$label', (major) => {
  const db = useDatabase('pgboss_hand_off', major);

  async function claimRow(key: string) {
    const { rows } = await db
      .pool()
      .query(
        "SELECT state, token, expires_at > now() + interval '1 hour' AS held FROM sms_webhook_events WHERE key = $1",
        [key],
      );
    return rows[0] as { state: string; token: string; held: boolean } | undefined;
  }

  describe('enqueueTo: the claim and the job in one transaction', () => {
    it('answers 200 once the job exists, holding the claim for it; the worker runs it once and completes the record', async () => {
      const { boss, store, queue } = await queueSetUp(db);
      const { receiver } = handOffReceiver(boss, store, { queue });

      const d = createTestDelivery('message.delivered', { secret });
      const res = await receiver.handle({ rawBody: d.body, headers: d.headers });
      expect(res.status).toBe(200);
      const job = await boss.getJobById<{ event: { id: string } }>(queue, jobIdFor(d.event.id));
      expect(job?.state).toBe('created');
      expect(job?.data.event.id).toBe(d.event.id);
      // The 24 h hold, committed with the job, not the receiver's 5 min lease.
      expect(await claimRow(d.event.id)).toMatchObject({ state: 'in-flight', held: true });
      // A redelivery while the job waits: 409, no second job.
      expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(409);

      const runs = await recordingWorker(db, boss, { queue, store });
      await waitForJob(boss, queue, d.event.id, 'completed', 'the job to complete');
      expect(runs).toEqual([d.event.id]);
      expect((await claimRow(d.event.id))?.state).toBe('completed');
      const again = await receiver.handle({ rawBody: d.body, headers: d.headers });
      expect(again.status).toBe(200);
      expect(JSON.parse(again.body)).toMatchObject({ duplicate: true });
    });

    it('a job insert that fails commits nothing: 503, the claim released, no job; the retry is queued once', async () => {
      const { boss, store, queue } = await queueSetUp(db);
      const pool = db.pool();
      // A real failure of the insert, inside the hand-off's transaction (after the claim was held).
      const dropTrigger = await beforeJobInsert(
        pool,
        queue,
        'refuse',
        "RAISE EXCEPTION 'job table refuses %', NEW.name;",
      );
      const { receiver, logger } = handOffReceiver(boss, store, { queue });

      const d = createTestDelivery('message.delivered', { secret });
      const res = await receiver.handle({ rawBody: d.body, headers: d.headers });
      expect(res.status).toBe(503);
      expect(logger.text()).toMatch(/job table refuses/);
      expect(await claimRow(d.event.id)).toBeUndefined();
      expect(await boss.getJobById(queue, jobIdFor(d.event.id))).toBeNull();

      await dropTrigger();
      expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
      expect(await jobState(boss, queue, d.event.id)).toBe('created');
      expect(await claimRow(d.event.id)).toMatchObject({ state: 'in-flight', held: true });
    });

    it('close() stops its own workers only: another worker on the queue runs the next event', async () => {
      const { boss, store, queue } = await queueSetUp(db);
      const { receiver } = handOffReceiver(boss, store, { queue });
      const runs: string[] = [];
      const options = { queue, store, pollingIntervalSeconds: 0.5, logger: captureLogger() };
      const first = await createWorker({ 'message.delivered': () => void runs.push('first') }, boss, options);
      const second = await createWorker(
        { 'message.delivered': () => void runs.push('second') },
        boss,
        options,
      );
      db.onCleanup(() => second.close());
      await first.close();

      const d = createTestDelivery('message.delivered', { secret });
      expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
      await waitForJob(boss, queue, d.event.id, 'completed', 'the job to complete');
      expect(runs).toEqual(['second']);
    });

    it('a transaction cut off mid-insert (its connection killed) leaves no job and answers 503; the claim is freed', async () => {
      const { boss, store, queue } = await queueSetUp(db);
      const pool = db.pool();
      await beforeJobInsert(pool, queue, 'stall', 'PERFORM pg_sleep(60); RETURN NEW;');
      const { receiver } = handOffReceiver(boss, store, { queue, enqueue: { timeoutMs: 300 } });

      const d = createTestDelivery('message.delivered', { secret });
      // Not acknowledged while the job is not there.
      expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(503);
      // The claim is kept while the transaction may still commit.
      expect((await claimRow(d.event.id))?.state).toBe('in-flight');
      const { rows } = await pool.query(
        "SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = current_database() AND query LIKE '%INSERT INTO pgboss.job%' AND state = 'active' AND pid <> pg_backend_pid()",
      );
      expect(rows.length).toBe(1);
      await waitFor(async () => (await claimRow(d.event.id)) === undefined, 'the claim to be released');
      expect(await boss.getJobById(queue, jobIdFor(d.event.id))).toBeNull();
    });

    it('a claim lost before the hand-off gets no job (ERR_SMS_PGBOSS_CLAIM_LOST)', async () => {
      const { boss, store, queue } = await queueSetUp(db);
      const dispatch = enqueueTo(boss, { store, queue });
      const d = createTestDelivery('message.delivered', { secret });
      expect(await store.claim(d.event.id, 'theirs', 60_000)).toBe('claimed');
      await expect(
        dispatch({
          event: d.event,
          ctx: { receivedAt: new Date() },
          claim: { key: d.event.id, token: 'mine' },
        }),
      ).rejects.toMatchObject({ code: 'ERR_SMS_PGBOSS_CLAIM_LOST' });
      expect(await boss.getJobById(queue, jobIdFor(d.event.id))).toBeNull();
      expect(await claimRow(d.event.id)).toMatchObject({ token: 'theirs', held: false });
    });

    it('an event that has a job already gets no second one: 200, and the new claim is given back', async () => {
      const { boss, store, queue } = await queueSetUp(db);
      const { receiver } = handOffReceiver(boss, store, { queue });
      const d = createTestDelivery('message.delivered', { secret });
      expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
      // The record goes (as after a final failure, which releases it); the job stays.
      await db.pool().query('DELETE FROM sms_webhook_events WHERE key = $1', [d.event.id]);
      expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
      expect(await claimRow(d.event.id)).toBeUndefined();
      const { rows } = await db
        .pool()
        .query('SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1', [queue]);
      expect(rows[0].n).toBe(1);
    });

    it('a missing queue is a 503 whose log says how to create it', async () => {
      const boss = await db.boss();
      const store = await db.store();
      const { receiver, logger } = handOffReceiver(boss, store, { queue: 'never_created' });
      const d = createTestDelivery('message.delivered', { secret });
      expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(503);
      expect(logger.text()).toMatch(/boss\.createQueue\('never_created'\)/);
      expect(await claimRow(d.event.id)).toBeUndefined();
    });

    it('refuses bad options at start-up with a coded error', async () => {
      const boss = await db.boss();
      const store = await db.store();
      expect(() => enqueueTo(boss, {} as never)).toThrow(
        expect.objectContaining({ code: 'ERR_SMS_PGBOSS_OPTIONS' }),
      );
      expect(() => enqueueTo(boss, { store, attempts: 0 })).toThrow(/attempts/);
      expect(() => enqueueTo({} as never, { store })).toThrow(/started PgBoss/);
      // From an environment variable: the message names the type, not just `got 5000`.
      expect(() => enqueueTo(boss, { store, timeoutMs: '5000' as never })).toThrow(
        expect.objectContaining({
          name: 'PgBossHandOffError',
          code: 'ERR_SMS_PGBOSS_OPTIONS',
          message:
            '@sms-webhooks/pg-boss: `timeoutMs` must be a positive integer of ms, got the string "5000".',
        }),
      );
      expect(() => enqueueTo(boss, { store, retryDelaySeconds: -1 })).toThrow(
        /`retryDelaySeconds` must be 0 or a positive integer of seconds, got -1\./,
      );
      await expect(createWorker({}, boss, { concurrency: '4' as never })).rejects.toThrow(
        /`concurrency` must be a positive integer, got the string "4"/,
      );
    });
  });
});
