import { createReceiver, type ReceiverOptions } from '@sms-webhooks/core';
import { type EnqueueOptions, enqueueTo } from '@sms-webhooks/pg-boss';
import { PostgresStore } from '@sms-webhooks/postgres';
import { captureLogger } from '@sms-webhooks/test-helpers';
import { createDatabase, pgPool, type TestDatabase } from '@sms-webhooks/test-helpers/postgres-db';
import type pg from 'pg';
import PgBoss from 'pg-boss';
import { afterAll, afterEach, beforeAll } from 'vitest';

export { captureLogger, waitFor } from '@sms-webhooks/test-helpers';
export { createDatabase, pgPool } from '@sms-webhooks/test-helpers/postgres-db';

export const secret = 'whsec_pgboss0123456789abcdef012345678';

/** Quick enough for tests: pg-boss checks for timed-out jobs every second. */
export const fastBoss = { maintenanceIntervalSeconds: 1, monitorStateIntervalSeconds: 1 } as const;

let queues = 0;
export function queueName(): string {
  queues += 1;
  return `q${queues}_${process.pid}`;
}

export interface Db {
  readonly url: string;
  /** A pg pool closed after the test. */
  pool(options?: pg.PoolConfig): pg.Pool;
  /** A started PgBoss, stopped after the test. */
  boss(options?: Partial<PgBoss.ConstructorOptions>): Promise<PgBoss>;
  /** A PostgresStore on a pool of its own, its table migrated. */
  store(): Promise<PostgresStore<pg.PoolClient>>;
  /** Runs after each test, in reverse order. */
  onCleanup(fn: () => Promise<unknown>): void;
}

/** One database for the test file (dropped at the end); what a test opens is closed after it. */
export function useDatabase(label: string): Db {
  let db: TestDatabase | undefined;
  const cleanups: Array<() => Promise<unknown>> = [];
  beforeAll(async () => {
    db = await createDatabase(label);
    // pg-boss creates its schema on first start; two starts at once in a fresh database can race.
    const boss = new PgBoss({ connectionString: db.url, supervise: false, schedule: false });
    boss.on('error', () => {});
    await boss.start();
    await boss.stop({ graceful: false, wait: true });
  });
  afterEach(async () => {
    for (const fn of cleanups.reverse()) await fn().catch(() => {});
    cleanups.length = 0;
  });
  afterAll(() => db?.drop());
  const url = () => {
    if (!db) throw new Error('useDatabase: read it inside a test');
    return db.url;
  };
  const api: Db = {
    get url() {
      return url();
    },
    pool(options) {
      const pool = pgPool(url(), options);
      cleanups.push(() => pool.end());
      return pool;
    },
    async boss(options = {}) {
      const boss = new PgBoss({ connectionString: url(), schedule: false, ...options });
      boss.on('error', () => {});
      await boss.start();
      cleanups.push(() => boss.stop({ graceful: false, wait: true, timeout: 1000 }));
      return boss;
    },
    async store() {
      const store = new PostgresStore({ pool: api.pool() });
      await store.migrate();
      cleanups.push(() => store.shutdown());
      return store;
    },
    onCleanup(fn) {
      cleanups.push(fn);
    },
  };
  return api;
}

/** The receiving process: verifies, claims and hands each event to pg-boss. Its handlers never run. */
export function handOffReceiver(
  boss: PgBoss,
  store: PostgresStore<pg.PoolClient>,
  options: { queue: string; enqueue?: Partial<EnqueueOptions> } & Partial<ReceiverOptions>,
) {
  const { queue, enqueue, ...rest } = options;
  const logger = captureLogger();
  const receiver = createReceiver({
    secret,
    store,
    logger,
    dispatch: enqueueTo(boss, { store, queue, ...enqueue }),
    ...rest,
  });
  receiver.on('message.delivered', () => {
    throw new Error('handlers must not run in the receiving process');
  });
  receiver.on('message.failed', () => {
    throw new Error('handlers must not run in the receiving process');
  });
  return { receiver, logger };
}
