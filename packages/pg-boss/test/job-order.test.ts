import { createReceiver } from '@sms-webhooks/core';
import { createWorker, enqueueTo, jobIdFor } from '@sms-webhooks/pg-boss';
import type { PostgresStore } from '@sms-webhooks/postgres';
import * as jobOrder from '@sms-webhooks/test-helpers/job-order';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { queueSetUp } from './queue-set-up.js';
import type { Boss } from './set-up.js';
import { captureLogger, fastBoss, MAJORS, secret, useDatabase, waitFor } from './set-up.js';
import { type KillAt, spawnOrderedWorker } from './worker-process.js';

/**
 * `order` on the pg-boss hand-off: each job carries its object and version, the worker takes the job's
 * turn before running it, and the version advances in the transaction that completes the job.
 */
const status = jobOrder.statusSigner(secret);

describe.each(MAJORS)('$label', (major) => {
  const db = useDatabase('pgboss_job_order', major);

  function orderedReceiver(boss: Boss, store: PostgresStore<pg.PoolClient>, queue: string, attempts = 8) {
    const receiver = createReceiver({
      secret,
      store,
      order: true,
      logger: captureLogger(),
      dispatch: enqueueTo(boss, {
        store,
        queue,
        attempts,
        retryDelaySeconds: 0,
        retryBackoff: false,
        expireInSeconds: 3,
      }),
    });
    receiver.on(jobOrder.STATUSES, () => {
      throw new Error('handlers must not run in the receiving process');
    });
    return receiver;
  }

  /** A worker "process": a PgBoss and a PostgresStore of its own, handlers given by the test. */
  async function orderedWorker(
    queue: string,
    handler: (event: { id: string; type: string; data: { id: string } }) => unknown,
    stale: string[],
    options: { concurrency?: number; leaseMs?: number } = {},
  ) {
    const boss = await db.boss(fastBoss(db.major));
    const store = await db.store();
    const receiver = createReceiver({
      secret,
      store,
      order: true,
      logger: captureLogger(),
      leaseMs: options.leaseMs,
    });
    receiver.on(jobOrder.STATUSES, (event) => handler(event as never));
    receiver.onStale((event, object) => void stale.push(`${object.key} ${event.type}`));
    const worker = await createWorker(receiver, boss, {
      queue,
      concurrency: options.concurrency ?? 2,
      pollingIntervalSeconds: 0.5,
      orderWaitMs: 30,
    });
    db.onCleanup(() => worker.close());
    return worker;
  }

  async function states(boss: Boss, queue: string, ids: string[]): Promise<string[]> {
    return Promise.all(ids.map(async (id) => (await boss.getJobById(queue, jobIdFor(id)))?.state ?? 'none'));
  }

  async function version(store: PostgresStore<pg.PoolClient>, message: string): Promise<string | undefined> {
    const pool = db.pool();
    const { rows } = await pool.query(`SELECT version FROM ${store.table}_order WHERE key = $1`, [
      `message:${message}`,
    ]);
    return rows[0]?.version;
  }

  describe('order: true with enqueueTo (pg-boss): the worker applies the rule', () => {
    it('shuffled status events through two workers end at each message newest status; older ones are stale, and no two of one message run at once', {
      timeout: 60_000,
    }, async () => {
      const { boss, store, queue } = await queueSetUp(db, fastBoss(db.major));
      const receiver = orderedReceiver(boss, store, queue);
      const messages = Array.from({ length: 10 }, (_, i) => `msg_pg${i}_${queue}`);
      const deliveries = jobOrder.sentRetriedAndFinal(status, messages);
      for (const d of jobOrder.shuffled(deliveries, 11)) {
        expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
      }
      const recorder = jobOrder.overlapRecorder();
      const stale: string[] = [];
      await orderedWorker(queue, recorder.handler, stale);
      await orderedWorker(queue, recorder.handler, stale);
      const ids = deliveries.map((d) => d.event.id);
      await waitFor(
        async () => (await states(boss, queue, ids)).every((s) => s === 'completed'),
        'every job to complete',
        40_000,
      );
      jobOrder.expectNewestStatuses(recorder, messages, deliveries, stale);
      // Every event's record completed, stale ones included: a redelivery is a duplicate.
      for (const d of deliveries) expect(await store.claim(d.event.id, 'probe', 1000)).toBe('completed');
      // No waits were counted as retries.
      for (const d of deliveries)
        expect((await boss.getJobById(queue, jobIdFor(d.event.id)))?.retryCount).toBe(0);
    });

    it('a job whose message another job holds waits, spending no attempt, then runs', {
      timeout: 30_000,
    }, async () => {
      const { boss, store, queue } = await queueSetUp(db, fastBoss(db.major));
      const receiver = orderedReceiver(boss, store, queue, 1);
      const m = `msg_busy_${queue}`;
      const { sent, delivered, seen, stale, unblock } = await jobOrder.deliveredWhileSentRuns(
        receiver,
        status,
        m,
        (handler, staleInto) => orderedWorker(queue, handler, staleInto, { concurrency: 1 }),
      );
      await waitFor(
        async () => (await boss.getJobById(queue, jobIdFor(delivered.event.id)))?.state === 'active',
        'message.delivered to be fetched',
      );
      // Held a while (past several of its 30 ms waits), with one attempt: a counted wait would fail it.
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(seen).toEqual(['message.sent']);
      const waiting = await boss.getJobById(queue, jobIdFor(delivered.event.id));
      expect([waiting?.state, waiting?.retryCount]).toEqual(['active', 0]);

      unblock();
      await waitFor(
        async () =>
          (await states(boss, queue, [sent.event.id, delivered.event.id])).every((s) => s === 'completed'),
        'both jobs to complete',
      );
      expect(seen).toEqual(['message.sent', 'message.delivered']);
      expect(stale).toEqual([]);
    });

    it('on success the version, the event record and the job complete together', {
      timeout: 30_000,
    }, async () => {
      const { boss, store, queue } = await queueSetUp(db, fastBoss(db.major));
      const receiver = orderedReceiver(boss, store, queue);
      const m = `msg_tx_${queue}`;
      const stale: string[] = [];
      await orderedWorker(queue, () => {}, stale);
      const sent = status('message.sent', m, 4);
      await receiver.handle({ rawBody: sent.body, headers: sent.headers });
      await waitFor(async () => (await states(boss, queue, [sent.event.id]))[0] === 'completed', 'the job');
      expect(await version(store, m)).toBe(
        `${String(Date.parse('2026-11-27T10:00:04Z')).padStart(15, '0')}.1`,
      );
      expect(await store.claim(sent.event.id, 'probe', 1000)).toBe('completed');
    });

    describe('a worker killed with SIGKILL at each step of an ordered job', () => {
      const cases: Array<[KillAt, string]> = [
        ['handler', 'while its handler runs: the lease runs out, the job runs again, then the newer one'],
        ['before-commit', 'after its handler, before the commit: nothing moved, the job runs again'],
        ['after-commit', 'right after the commit: job, record and version are done, nothing runs again'],
      ];
      for (const [killAt, title] of cases) {
        it(`${killAt}: ${title}; the message ends at its newest status`, { timeout: 60_000 }, async () => {
          const { boss, store, queue } = await queueSetUp(db, fastBoss(db.major));
          const receiver = orderedReceiver(boss, store, queue);
          const m = `msg_kill_${killAt.replace('-', '_')}_${queue}`;
          const sent = status('message.sent', m, 1);
          await receiver.handle({ rawBody: sent.body, headers: sent.headers });
          const child = await spawnOrderedWorker({ url: db.url, queue, killAt, module: db.major.module });
          try {
            expect(await child.started).toBe(sent.event.id);
          } finally {
            await child.exited;
          }
          // Where the kill left it: after the commit, job, record and version are done together (pg-boss's
          // own completion never ran); before it, none of them.
          const sentVersion = `${String(Date.parse('2026-11-27T10:00:01Z')).padStart(15, '0')}.1`;
          const committed = killAt === 'after-commit';
          expect(await states(boss, queue, [sent.event.id])).toEqual([committed ? 'completed' : 'active']);
          expect(await version(store, m)).toBe(committed ? sentVersion : null);
          expect(await store.claim(sent.event.id, 'probe', 1000)).toBe(committed ? 'completed' : 'in-flight');
          // The newer status arrives while the dead worker's job is where the kill left it.
          const delivered = status('message.delivered', m, 2);
          await receiver.handle({ rawBody: delivered.body, headers: delivered.headers });

          const runs: string[] = [];
          const stale: string[] = [];
          await orderedWorker(queue, (event) => void runs.push(event.type), stale, { concurrency: 2 });
          await waitFor(
            async () =>
              (await states(boss, queue, [sent.event.id, delivered.event.id])).every(
                (s) => s === 'completed',
              ),
            'both jobs to complete',
            45_000,
          );
          // The newest status is the last one handled, whichever of the two ran here.
          expect(runs.at(-1)).toBe('message.delivered');
          expect(runs.filter((r) => r === 'message.delivered')).toHaveLength(1);
          if (killAt === 'after-commit') expect(runs).toEqual(['message.delivered']);
          else expect(runs.length + stale.length).toBe(2);
          expect(await version(store, m)).toBe(
            `${String(Date.parse('2026-11-27T10:00:02Z')).padStart(15, '0')}.2`,
          );
          for (const d of [sent, delivered])
            expect(await store.claim(d.event.id, 'probe', 1000)).toBe('completed');
        });
      }
    });
  });
});
