import { randomUUID } from 'node:crypto';
import type { AnyWebhookEvent } from '@sms-webhooks/core';
import { jobState, type PgBossDb, type PgBossSender } from './boss.js';
import { dedupeStatements } from './dedupe-statements.js';
import { PgBossHandOffError } from './errors.js';
import { DEFAULT_QUEUE_NAME, readJobData, type WebhookJobData } from './job-data.js';
import { jobIdFor } from './job-id.js';
import { jobTables } from './job-tables.js';
import { positiveInteger } from './option-checks.js';
import { checkStore, type HandOffStore } from './store.js';
import { transactionDb } from './transaction-db.js';

/** Where {@link listFailed} and {@link findFailed} look: the queue and pg-boss's schema. */
export interface FailedJobsOptions {
  /** Default 'sms-webhooks'. */
  queue?: string;
  /** pg-boss's schema, as given to `new PgBoss({ schema })`. Default 'pgboss'. */
  schema?: string;
}

/** One event whose job failed for good. */
export interface FailedEvent {
  /** The event's id (`evt_…`). */
  eventId: string;
  /** The event's type. */
  type: string;
  /** The pg-boss job's id. */
  jobId: string;
  /** Runs made, the last one included. */
  attempts: number;
  /** When the last run failed. */
  failedAt: Date;
  /** The last error's message, as pg-boss stored it. */
  error: string | undefined;
  /**
   * Moved to pg-boss 10's archive (after `archiveFailedAfterSeconds`); still listed and replayable.
   * Always false on pg-boss 12, which keeps failed jobs in its job table until `deleteAfterSeconds`.
   */
  archived: boolean;
}

/** What {@link replayFailed} needs: the queue, and the store where it claims the event again. */
export interface ReplayOptions extends FailedJobsOptions {
  /** The receiver's PostgresStore (`{ pool }` or `{ sql }`). Required. */
  store: HandOffStore;
  /** How long the replay holds the event's claim for its new job, in ms. Default 24 h. */
  holdMs?: number;
}

/** `replayed`: a new job runs the event once. `completed`: the dedupe record says it is done; nothing runs. */
export interface ReplayResult {
  /** The event asked for. */
  eventId: string;
  /** The job's id: {@link jobIdFor} of the event id, the same before and after the replay. */
  jobId: string;
  /** See above. */
  status: 'replayed' | 'completed';
}

const SCHEMA = /^[a-z_][a-z0-9_]{0,49}$/;

/** Thrown inside a replay's transaction to roll it back when the event turns out to be done. */
class AlreadyDone extends Error {}
const DAY_MS = 24 * 60 * 60 * 1000;

function schemaOf(options: FailedJobsOptions | undefined): string {
  const schema = options?.schema ?? 'pgboss';
  if (!SCHEMA.test(schema)) {
    throw new PgBossHandOffError(
      'ERR_SMS_PGBOSS_OPTIONS',
      `\`schema\` must be pg-boss's schema name (lowercase letters, digits, _), got ${JSON.stringify(schema)}.`,
    );
  }
  return schema;
}

interface FailedRow {
  id: string;
  data: WebhookJobData;
  output: { message?: unknown } | null;
  retry_count: number;
  completed_on: Date;
  archived: boolean;
}

/**
 * The events whose jobs failed for good, newest first: pg-boss keeps them in the failed state, then in
 * its archive (`archiveFailedAfterSeconds`, until `deleteAfterDays`). Read-only.
 */
export async function listFailed(
  boss: PgBossDb,
  options: FailedJobsOptions & { limit?: number } = {},
): Promise<FailedEvent[]> {
  const s = schemaOf(options);
  const limit = options.limit ?? 100;
  const columns = 'id, data, output, retry_count, completed_on';
  const db = boss.getDb();
  const { tables } = await jobTables(db, s);
  const { rows } = await db.executeSql(
    `SELECT * FROM (
${tables.map((t) => `  SELECT ${columns}, ${t.archived} AS archived FROM ${t.name} WHERE name = $1 AND state = 'failed'`).join('\n  UNION ALL\n')}
) failed ORDER BY completed_on DESC LIMIT $2`,
    [options.queue ?? DEFAULT_QUEUE_NAME, limit],
  );
  return (rows as unknown as FailedRow[]).map(toFailedEvent);
}

function toFailedEvent(row: FailedRow): FailedEvent {
  const event = (row.data == null ? undefined : readJobData(row.data).event) as AnyWebhookEvent | undefined;
  const message = row.output?.message;
  return {
    eventId: event?.id ?? '',
    type: event?.type ?? '',
    jobId: row.id,
    attempts: row.retry_count + 1,
    failedAt: new Date(row.completed_on),
    error: typeof message === 'string' ? message : undefined,
    archived: row.archived,
  };
}

/**
 * The failed job of one event (in the failed state or archived as failed), or undefined when the event
 * has none: what the audit reads for an event the app acknowledged but never finished. Read-only.
 */
export async function findFailed(
  boss: PgBossDb,
  eventId: string,
  options: FailedJobsOptions = {},
): Promise<FailedEvent | undefined> {
  const s = schemaOf(options);
  const columns = 'id, data, output, retry_count, completed_on';
  const where = "WHERE name = $1 AND id = $2::uuid AND state = 'failed'";
  const db = boss.getDb();
  const { tables } = await jobTables(db, s);
  const { rows } = await db.executeSql(
    `${tables.map((t) => `SELECT ${columns}, ${t.archived} AS archived FROM ${t.name} ${where}`).join('\nUNION ALL\n')}
LIMIT 1`,
    [options.queue ?? DEFAULT_QUEUE_NAME, jobIdFor(eventId)],
  );
  const row = (rows as unknown as FailedRow[])[0];
  return row === undefined ? undefined : toFailedEvent(row);
}

interface TakenRow {
  data: WebhookJobData;
  retry_limit: number;
  retry_delay: number;
  retry_backoff: boolean;
  expire_in_seconds: number;
}

/**
 * Runs a failed event again, once. In one transaction: the failed job is taken out of the failed state
 * (row-locked, so two replays cannot both take it), the event's dedupe record is claimed for the new
 * job, and the job is sent again with the same id and retry settings. If the dedupe record says the
 * event completed meanwhile, nothing changes and the result is `completed`. Rejects with
 * ERR_SMS_PGBOSS_NO_JOB or ERR_SMS_PGBOSS_NOT_FAILED when there is no failed job for the event.
 */
export async function replayFailed(
  boss: PgBossSender,
  eventId: string,
  options: ReplayOptions,
): Promise<ReplayResult> {
  const store = checkStore(options?.store, 'replayFailed(boss, eventId, { store })');
  const s = schemaOf(options);
  const sql = dedupeStatements(store.table);
  const queue = options.queue ?? DEFAULT_QUEUE_NAME;
  const holdMs = positiveInteger('holdMs', options.holdMs, DAY_MS, 'ms');
  const jobId = jobIdFor(eventId);
  const result = (status: ReplayResult['status']): ReplayResult => ({ eventId, jobId, status });

  try {
    return await store.transaction({}, async (tx) => {
      const db = transactionDb(tx);
      const { tables, expireSeconds } = await jobTables(db, s);
      const where = `WHERE name = $1 AND id = $2::uuid AND state = 'failed'
RETURNING data, retry_limit, retry_delay, retry_backoff, ${expireSeconds} AS expire_in_seconds`;
      let rows: Record<string, unknown>[] = [];
      for (const table of tables) {
        rows = (await db.executeSql(`DELETE FROM ${table.name} ${where}`, [queue, jobId])).rows;
        if (rows.length > 0) break;
      }
      const row = rows[0] as TakenRow | undefined;
      if (row === undefined) {
        const state = await jobState(boss, queue, jobId, db, true);
        throw state === undefined
          ? new PgBossHandOffError(
              'ERR_SMS_PGBOSS_NO_JOB',
              `no job for ${eventId.slice(0, 80)} in the queue ${queue}.`,
            )
          : new PgBossHandOffError(
              'ERR_SMS_PGBOSS_NOT_FAILED',
              `the job for ${eventId.slice(0, 80)} is ${state}, not failed: there is nothing to replay.`,
            );
      }
      const claim = { key: row.data.claim?.key ?? eventId, token: randomUUID() };
      const claimed = await db.executeSql(sql.takeOver, [store.keyFor(claim.key), claim.token, holdMs]);
      // Completed by another run since: replaying would run it twice. The rollback keeps the failed job.
      if (claimed.rows.length !== 1) throw new AlreadyDone();
      const sent = await boss.send(
        queue,
        { ...row.data, claim },
        {
          id: jobId,
          db,
          retryLimit: row.retry_limit,
          retryDelay: row.retry_delay,
          retryBackoff: row.retry_backoff,
          expireInSeconds: row.expire_in_seconds,
        },
      );
      if (sent === null) {
        throw new PgBossHandOffError(
          'ERR_SMS_PGBOSS_NOT_FAILED',
          `${eventId.slice(0, 80)} has a newer job in the queue ${queue}: there is nothing to replay.`,
        );
      }
      return result('replayed');
    });
  } catch (error) {
    if (error instanceof AlreadyDone) return result('completed');
    throw error;
  }
}
