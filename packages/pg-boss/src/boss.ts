import type { WebhookJobData } from './job-data.js';
import type { SqlExecutor } from './transaction-db.js';

// What this package calls on a started PgBoss, declared here instead of imported from pg-boss: the types
// of pg-boss 10 (a default export) and 12 (a named one, other generics) do not fit each other, and an
// application's PgBoss of either major has to fit these. The methods whose signatures changed between
// the majors take any arguments here and are called through `offWork` below.

/** A job as the worker and its `onError` hook see it: the fields pg-boss 10 and 12 both give. */
export interface WebhookJob {
  /** The job's id (a UUID). */
  id: string;
  /** The queue's name. */
  name: string;
  /** What the hand-off stored: the event and its claim. */
  data: WebhookJobData;
  /** The run's time limit, in seconds. */
  expireInSeconds: number;
  /** pg-boss's priority (higher runs first). */
  priority: number;
  /** pg-boss's job state; `active` while a worker runs it. */
  state: 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed';
  /** Retries allowed after the first run (`attempts` minus one). */
  retryLimit: number;
  /** Retries made before this run: 0 on the first. */
  retryCount: number;
  /** Seconds before the first retry. */
  retryDelay: number;
  /** True when each retry waits twice as long as the one before. */
  retryBackoff: boolean;
  /** When the job may run (later for a retry). */
  startAfter: Date;
  /** When this run started. */
  startedOn: Date;
  /** pg-boss's singleton key, when one was set. */
  singletonKey: string | null;
  /** When the hand-off created the job. */
  createdOn: Date;
  /** When the job completed or failed for good, else null. */
  completedOn: Date | null;
}

interface JobState {
  state: string;
}

/** What `enqueueTo` and `replayFailed` use: sending a job, and looking one up. */
export interface PgBossSender {
  /** Creates a job; resolves with its id. */
  send(name: string, data: object, options: object): Promise<string | null>;
  /** pg-boss 10; deprecated in 12, where `findJobs` is used. */
  getJobById(name: string, id: string, options?: { db?: SqlExecutor }): Promise<{ state: string } | null>;
  /** The queue's settings, or null when it does not exist. */
  getQueue(name: string): Promise<unknown>;
}

/** What `createWorker` uses: `work` and `offWork`, whose signatures differ between the majors. */
export interface PgBossWorkers {
  /** Starts a worker on a queue; resolves with its id. */
  work(...args: never[]): Promise<string>;
  /** Stops a worker, by id or queue name. */
  offWork(...args: never[]): Promise<unknown>;
}

/** What `listFailed` and `findFailed` use: pg-boss's own connection, to read its job table. */
export interface PgBossDb {
  /** pg-boss's database connection (`executeSql`). */
  getDb(): SqlExecutor;
}

// pg-boss 12.6 added findJobs, after 12.2 moved offWork to (name, { id }). The peer range starts there.
function isV12(boss: object): boss is { findJobs: FindJobs } {
  return typeof (boss as { findJobs?: unknown }).findJobs === 'function';
}

type FindJobs = (name: string, options: { id: string; db?: SqlExecutor }) => Promise<JobState[]>;

/** The state of the job `id` in `queue` (pg-boss 10: its archive too), or undefined when there is none. */
export async function jobState(
  boss: PgBossSender,
  queue: string,
  id: string,
  db: SqlExecutor,
  includeArchive: boolean,
): Promise<string | undefined> {
  if (isV12(boss)) {
    try {
      return (await boss.findJobs(queue, { id, db }))[0]?.state;
    } catch (error) {
      // pg-boss 12 refuses a queue it does not know: it has no jobs.
      if ((await boss.getQueue(queue).catch(() => undefined)) === null) return undefined;
      throw error;
    }
  }
  const lookUp = boss.getJobById as (
    name: string,
    id: string,
    options: { db: SqlExecutor; includeArchive: boolean },
  ) => Promise<JobState | null>;
  return (await lookUp.call(boss, queue, id, { db, includeArchive }))?.state;
}

type Work = (
  name: string,
  options: { batchSize: number; includeMetadata: true; pollingIntervalSeconds: number },
  handler: (jobs: WebhookJob[]) => Promise<void>,
) => Promise<string>;

export function work(boss: PgBossWorkers, ...args: Parameters<Work>): Promise<string> {
  return (boss.work as unknown as Work).apply(boss, args);
}

/** Stops the worker `id` on `queue` only: pg-boss 10 takes `{ id }`, 12 takes the queue and `{ id }`. */
export function offWork(boss: PgBossWorkers, queue: string, id: string): Promise<unknown> {
  const off = boss.offWork as unknown as (...args: unknown[]) => Promise<unknown>;
  return isV12(boss) ? off.call(boss, queue, { id }) : off.call(boss, { id });
}
