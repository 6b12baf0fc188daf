import { createReceiver, type ReceiverOptions } from '@sms-webhooks/core';
import { type EnqueueOptions, enqueueTo } from '@sms-webhooks/pg-boss';
import { PostgresStore } from '@sms-webhooks/postgres';
import { captureLogger } from '@sms-webhooks/test-helpers';
import { createDatabase, pgPool, type TestDatabase } from '@sms-webhooks/test-helpers/postgres-db';
import type pg from 'pg';
import PgBoss from 'pg-boss';
import { PgBoss as PgBoss12 } from 'pg-boss12';
import { afterAll, afterEach, beforeAll } from 'vitest';

export { captureLogger, waitFor } from '@sms-webhooks/test-helpers';
export { createDatabase, pgPool } from '@sms-webhooks/test-helpers/postgres-db';

export const secret = 'whsec_pgboss0123456789abcdef012345678';

/**
 * Quick enough for tests: pg-boss checks for timed-out jobs every second. pg-boss 12 renamed the
 * options: its supervisor runs the monitor, which fails or retries expired jobs.
 */
export function fastBoss(major: Major): Partial<PgBoss.ConstructorOptions> {
  return major.major === 12
    ? ({ superviseIntervalSeconds: 1, monitorIntervalSeconds: 1 } as Partial<PgBoss.ConstructorOptions>)
    : { maintenanceIntervalSeconds: 1, monitorStateIntervalSeconds: 1 };
}

/** A pg-boss major the peer range names, and the module the tests (and their child processes) load it from. */
export interface Major {
  label: string;
  major: 10 | 12;
  module: 'pg-boss' | 'pg-boss12';
}

const [nodeMajor, nodeMinor] = process.versions.node.split('.').map(Number) as [number, number];
/** pg-boss 12's engines field asks for Node 22.12 or later. */
const runsPgBoss12 = nodeMajor > 22 || (nodeMajor === 22 && nodeMinor >= 12);

/**
 * Every test file runs once per major. pg-boss 12 runs where its engines allow it: `.ci/run` runs this
 * package's tests on Node 22 and 24 as well as on the machine's Node 20, where only 10 runs. There it sets
 * `PG_BOSS_MAJORS=12`: the Node 20 run has tested 10 already, and 12 is what only those Nodes can run.
 */
const ALL_MAJORS: Major[] = [
  { label: 'pg-boss 10', major: 10, module: 'pg-boss' },
  ...(runsPgBoss12 ? [{ label: 'pg-boss 12', major: 12, module: 'pg-boss12' } as const] : []),
];
const onlyMajors = process.env.PG_BOSS_MAJORS?.split(',').map(Number);
export const MAJORS: Major[] = ALL_MAJORS.filter((m) => !onlyMajors || onlyMajors.includes(m.major));
if (MAJORS.length === 0) {
  throw new Error(
    `PG_BOSS_MAJORS=${process.env.PG_BOSS_MAJORS} names no pg-boss major this Node (${process.versions.node}) runs: ${ALL_MAJORS.map((m) => m.major).join(', ')}`,
  );
}

/**
 * A started PgBoss of either major. Typed as pg-boss 10's for the tests' own calls (createQueue,
 * getJobById, which 12 keeps); that 12's type fits the package's functions is types.test-d.ts's job.
 */
export type Boss = PgBoss;

function newBoss(major: Major, options: PgBoss.ConstructorOptions): Boss {
  return major.major === 12
    ? (new PgBoss12(options as ConstructorParameters<typeof PgBoss12>[0]) as unknown as Boss)
    : new PgBoss(options);
}

let queues = 0;
export function queueName(): string {
  queues += 1;
  return `q${queues}_${process.pid}`;
}

export interface Db {
  readonly url: string;
  /** A pg pool closed after the test. */
  pool(options?: pg.PoolConfig): pg.Pool;
  readonly major: Major;
  /** A started PgBoss of the file's major, stopped after the test. */
  boss(options?: Partial<PgBoss.ConstructorOptions>): Promise<Boss>;
  /** A PostgresStore on a pool of its own, its table migrated. */
  store(): Promise<PostgresStore<pg.PoolClient>>;
  /** Runs after each test, in reverse order. */
  onCleanup(fn: () => Promise<unknown>): void;
}

/**
 * One database per test file and major (dropped at the end); what a test opens is closed after it.
 * Call it inside the `describe.each(MAJORS)` block.
 */
export function useDatabase(label: string, major: Major): Db {
  let db: TestDatabase | undefined;
  const cleanups: Array<() => Promise<unknown>> = [];
  beforeAll(async () => {
    db = await createDatabase(`${label}_v${major.major}`);
    // pg-boss creates its schema on first start; two starts at once in a fresh database can race.
    const boss = newBoss(major, { connectionString: db.url, supervise: false, schedule: false });
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
    major,
    get url() {
      return url();
    },
    pool(options) {
      const pool = pgPool(url(), options);
      cleanups.push(() => pool.end());
      return pool;
    },
    async boss(options = {}) {
      const boss = newBoss(major, { connectionString: url(), schedule: false, ...options });
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
  boss: Boss,
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
