import { type Dispatch, type DispatchedEvent, DispatchTimeoutError } from '@sms-webhooks/core/queue';
import { withTimeout } from '@sms-webhooks/internal';
import { jobState, type PgBossSender } from './boss.js';
import { dedupeStatements } from './dedupe-statements.js';
import { PgBossHandOffError } from './errors.js';
import { DEFAULT_QUEUE_NAME, toJobData } from './job-data.js';
import { jobIdFor } from './job-id.js';
import { positiveInteger, wholeNumber } from './option-checks.js';
import { checkStore, type HandOffStore } from './store.js';
import { transactionDb } from './transaction-db.js';

/** How {@link enqueueTo} creates each event's job, in one transaction with its claim. */
export interface EnqueueOptions {
  /** The receiver's PostgresStore (`{ pool }` or `{ sql }`), on the database pg-boss uses. Required. */
  store: HandOffStore;
  /** The pg-boss queue; create it at start-up with `boss.createQueue(name)`. Default 'sms-webhooks'. */
  queue?: string;
  /** Runs per event before the job is failed for good (pg-boss `retryLimit` is this minus one). Default 8. */
  attempts?: number;
  /** Seconds before the first retry; doubled each retry with `retryBackoff`. Default 2. */
  retryDelaySeconds?: number;
  /** Exponential backoff (with pg-boss's jitter) between runs. Default true. */
  retryBackoff?: boolean;
  /** Longest run of one attempt before pg-boss fails it (a worker killed mid-job). Default 900 (15 min). */
  expireInSeconds?: number;
  /**
   * How long the hand-off holds the event's claim for its job, in ms: redeliveries meanwhile get 409 and
   * the worker completes it (or releases it once the job failed for good). Keep it above the longest a
   * job may wait, run and retry. Default 24 h.
   */
  holdMs?: number;
  /** How long to wait for the transaction before answering 503. Default 5000 ms. */
  timeoutMs?: number;
  /**
   * Any other option of pg-boss's `send` (priority, deadLetter, retention …), passed on as given: check
   * the names against your pg-boss major. `id` and `db` are always ours.
   */
  sendOptions?: Readonly<Record<string, unknown>>;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A receiver `dispatch` that commits the event's job and its dedupe claim in one PostgreSQL transaction:
 * `createReceiver({ secret, store, dispatch: enqueueTo(boss, { store }) })`. In that transaction the claim
 * the receiver took is held for the job (`holdMs`) and the job is inserted with id `jobIdFor(event.id)`.
 * It commits, and the receiver answers 200, only if both happen: a failed insert leaves no held claim
 * (the receiver releases it, 503), and a claim lost meanwhile leaves no job (503). An event that has a
 * job already gets no second one: the transaction gives this delivery's claim back and the answer is 200.
 */
export function enqueueTo(boss: PgBossSender, options: EnqueueOptions): Dispatch {
  if (typeof boss?.send !== 'function') {
    throw new PgBossHandOffError(
      'ERR_SMS_PGBOSS_OPTIONS',
      'enqueueTo(boss, { store }) needs a started PgBoss.',
    );
  }
  const store = checkStore(options?.store, 'enqueueTo(boss, { store })');
  const sql = dedupeStatements(store.table);
  const queue = options.queue ?? DEFAULT_QUEUE_NAME;
  const attempts = positiveInteger('attempts', options.attempts, 8);
  const holdMs = positiveInteger('holdMs', options.holdMs, DAY_MS, 'ms');
  const timeoutMs = positiveInteger('timeoutMs', options.timeoutMs, 5000, 'ms');
  const base = {
    ...options.sendOptions,
    retryLimit: attempts - 1,
    retryDelay: wholeNumber('retryDelaySeconds', options.retryDelaySeconds, 2, 'seconds'),
    retryBackoff: options.retryBackoff ?? true,
    expireInSeconds: positiveInteger('expireInSeconds', options.expireInSeconds, 900, 'seconds'),
  };

  const dispatch = async (dispatched: DispatchedEvent): Promise<void> => {
    const { event, claim } = dispatched;
    const id = jobIdFor(event.id);
    const key = claim === undefined ? undefined : store.keyFor(claim.key);
    const work = store.transaction({}, async (tx) => {
      const db = transactionDb(tx);
      if (claim !== undefined) {
        const held = await db.executeSql(sql.hold, [key, claim.token, holdMs]);
        if (held.rows.length !== 1) {
          throw new PgBossHandOffError(
            'ERR_SMS_PGBOSS_CLAIM_LOST',
            `the claim on ${event.id.slice(0, 80)} ran out before its job was created; nothing was committed.`,
          );
        }
      }
      const sent = await boss.send(queue, toJobData(dispatched), { ...base, id, db }).catch(async (error) => {
        // pg-boss 12 refuses a queue it does not know; 10 inserts nothing and answers null (below).
        if ((await boss.getQueue(queue).catch(() => undefined)) === null) throw noQueue(queue);
        throw error;
      });
      if (sent !== null) return;
      // No row: the queue is missing, or the event has a job already (retried after a final failure,
      // or its claim ran out while the job waited). That job stands for the event; the claim goes.
      if ((await jobState(boss, queue, id, db, false)) === undefined) throw noQueue(queue);
      if (claim !== undefined) await db.executeSql(sql.drop, [key, claim.token]);
    });
    // A transaction cut off by the time-out may still commit, holding this claim for its job.
    await withTimeout(
      work,
      timeoutMs,
      () =>
        new DispatchTimeoutError(
          `Handing ${event.id.slice(0, 80)} to pg-boss did not finish within ${timeoutMs} ms`,
          work,
        ),
    );
  };
  // createWorker orders each job by the slot it carries: the receiver may take `order` with this dispatch.
  return Object.assign(dispatch, { appliesOrder: true, keyedByEventId: true });
}

function noQueue(queue: string): PgBossHandOffError {
  return new PgBossHandOffError(
    'ERR_SMS_PGBOSS_NO_QUEUE',
    `the queue ${queue} does not exist: await boss.createQueue('${queue}') at start-up.`,
  );
}
