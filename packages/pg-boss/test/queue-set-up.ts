import { createWorker, jobIdFor } from '@sms-webhooks/pg-boss';
import type pg from 'pg';
import type PgBoss from 'pg-boss';
import { type Boss, captureLogger, type Db, queueName, waitFor } from './set-up.js';

/** A started PgBoss of the file's major, a migrated store, and a queue of the test's own, created. */
export async function queueSetUp(db: Db, bossOptions?: Partial<PgBoss.ConstructorOptions>) {
  const boss = await db.boss(bossOptions);
  const store = await db.store();
  const queue = queueName();
  await boss.createQueue(queue);
  return { boss, store, queue };
}

/** The state of the event's job, undefined when it has none. */
export async function jobState(boss: Boss, queue: string, eventId: string): Promise<string | undefined> {
  return (await boss.getJobById(queue, jobIdFor(eventId)))?.state;
}

/** Waits until the event's job is in `state`. */
export function waitForJob(
  boss: Boss,
  queue: string,
  eventId: string,
  state: string,
  what: string,
  timeoutMs?: number,
) {
  return waitFor(async () => (await jobState(boss, queue, eventId)) === state, what, timeoutMs);
}

/**
 * A worker in this process, closed after the test, whose message.delivered handler records the id of
 * each event it runs in the array returned.
 */
export async function recordingWorker(
  db: Db,
  boss: Boss,
  options: { queue: string; store: Awaited<ReturnType<Db['store']>> },
): Promise<string[]> {
  const runs: string[] = [];
  const worker = await createWorker({ 'message.delivered': (event) => void runs.push(event.id) }, boss, {
    ...options,
    pollingIntervalSeconds: 0.5,
    logger: captureLogger(),
  });
  db.onCleanup(() => worker.close());
  return runs;
}

/**
 * A trigger on pgboss.job that runs `body` (PL/pgSQL) before each insert of a job of `queue`: a real
 * failure or stall inside the hand-off's transaction. Resolves with a function that drops it.
 */
export async function beforeJobInsert(pool: pg.Pool, queue: string, name: string, body: string) {
  const fn = `${name}_${queue}`;
  await pool.query(`CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN ${body} END $$`);
  await pool.query(
    `CREATE TRIGGER ${fn} BEFORE INSERT ON pgboss.job FOR EACH ROW WHEN (NEW.name = '${queue}') EXECUTE FUNCTION ${fn}()`,
  );
  return () => pool.query(`DROP TRIGGER ${fn} ON pgboss.job`);
}
