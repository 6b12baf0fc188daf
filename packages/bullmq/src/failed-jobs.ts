import { randomUUID } from 'node:crypto';
import { type DedupeStore, SmsWebhooksError } from '@sms-webhooks/core';
import { optionError } from '@sms-webhooks/internal';
import type { Job, Queue } from 'bullmq';
import type { WebhookJobData } from './job-data.js';
import { jobIdFor } from './job-id.js';

/** One event whose job failed for good and sits in BullMQ's failed set. */
/** One event whose job failed for good, as {@link listFailed} and {@link findFailed} report it. */
export interface FailedEvent {
  /** The event's id (`evt_…`). */
  eventId: string;
  /** The event's type. */
  type: string;
  /** The BullMQ job's id ({@link jobIdFor} of the event id). */
  jobId: string;
  /** Runs made (`job.attemptsMade`). */
  attempts: number;
  /** When the last run failed (`job.finishedOn`), when BullMQ recorded it. */
  failedAt: Date | undefined;
  /** `job.failedReason`: the last error's message. */
  error: string | undefined;
}

/** What {@link replayFailed} needs: the store where it claims the event again. */
export interface ReplayOptions {
  /** The receiver's dedupe store: the replay claims the event there, so it runs once. Required. */
  store: DedupeStore;
  /** The lease of the replay's claim until the worker picks the job up and renews it. Default 30 min. */
  leaseMs?: number;
}

/**
 * `replayed`: the job is back in the queue with a claim of its own and runs once. `completed`: the
 * dedupe record says the event is done; nothing runs. `in-flight`: another delivery or replay holds the
 * event's claim right now; nothing changes, try again once its lease has run out.
 */
export interface ReplayResult {
  /** The event asked for. */
  eventId: string;
  /** Its job. */
  jobId: string;
  /** See above. */
  status: 'replayed' | 'completed' | 'in-flight';
}

/** Why {@link replayFailed} threw a {@link ReplayError}. */
export type ReplayErrorCode =
  /** No job for that event id in the queue. */
  | 'ERR_SMS_BULLMQ_NO_JOB'
  /** The event's job is not in the failed set (waiting, running, or done). */
  | 'ERR_SMS_BULLMQ_NOT_FAILED';

/** What {@link replayFailed} throws; `code` says why. Match on `code`, as `SmsWebhooksError` says. */
export class ReplayError extends SmsWebhooksError<ReplayErrorCode> {
  /** Its messages begin with `@sms-webhooks/bullmq`. */
  static override readonly package = '@sms-webhooks/bullmq';
  /** Always `ReplayError`. */
  override readonly name = 'ReplayError';
}

function toFailedEvent(job: Job<WebhookJobData>): FailedEvent {
  const event = job.data?.event;
  return {
    eventId: event?.id ?? '',
    type: event?.type ?? job.name,
    jobId: job.id ?? '',
    attempts: job.attemptsMade,
    failedAt: job.finishedOn ? new Date(job.finishedOn) : undefined,
    error: job.failedReason || undefined,
  };
}

/** The events in the queue's failed set, newest first (BullMQ keeps them while `removeOnFail` allows). */
export async function listFailed(
  queue: Pick<Queue<WebhookJobData>, 'getFailed'>,
  options: { limit?: number } = {},
): Promise<FailedEvent[]> {
  const limit = options.limit ?? 100;
  const jobs = (await queue.getFailed(0, limit - 1)) as Job<WebhookJobData>[];
  return jobs.filter((job) => job !== undefined).map(toFailedEvent);
}

/**
 * The failed job of one event, or undefined when its job is not in the failed set (never queued,
 * waiting, running, done, or removed by `removeOnFail`): what the audit reads. Read-only.
 */
export async function findFailed(
  queue: Pick<Queue<WebhookJobData>, 'getJob'>,
  eventId: string,
): Promise<FailedEvent | undefined> {
  const job = (await queue.getJob(jobIdFor(eventId))) as Job<WebhookJobData> | undefined;
  if (job === undefined || (await job.getState()) !== 'failed') return undefined;
  return toFailedEvent(job);
}

/**
 * Runs a failed event again, once. The event is claimed in the dedupe store first (after a final
 * failure the worker released its claim): `completed` means it is done and nothing runs; `in-flight`
 * means another delivery holds it. Once claimed, the job carries the new claim and goes back to the
 * queue with its attempts reset; the worker completes the record when it succeeds. Rejects with
 * ERR_SMS_BULLMQ_NO_JOB or ERR_SMS_BULLMQ_NOT_FAILED when there is no failed job for the event.
 */
export async function replayFailed(
  queue: Pick<Queue<WebhookJobData>, 'getJob'>,
  eventId: string,
  options: ReplayOptions,
): Promise<ReplayResult> {
  const store = options?.store;
  if (typeof store?.claim !== 'function') {
    throw optionError(
      '@sms-webhooks/bullmq',
      "replayFailed(queue, eventId, { store }) needs the receiver's dedupe store.",
    );
  }
  const jobId = jobIdFor(eventId);
  const job = (await queue.getJob(jobId)) as Job<WebhookJobData> | undefined;
  if (job === undefined) {
    throw new ReplayError('ERR_SMS_BULLMQ_NO_JOB', `no job for ${eventId.slice(0, 80)} in the queue.`);
  }
  const notFailed = (state: string) =>
    new ReplayError(
      'ERR_SMS_BULLMQ_NOT_FAILED',
      `the job for ${eventId.slice(0, 80)} is ${state}, not failed: there is nothing to replay.`,
    );
  const state = await job.getState();
  if (state !== 'failed') throw notFailed(state);

  const claim = { key: job.data.claim?.key ?? eventId, token: randomUUID() };
  const claimed = await store.claim(claim.key, claim.token, options.leaseMs ?? 30 * 60_000);
  if (claimed !== 'claimed') return { eventId, jobId, status: claimed };
  try {
    // Checked again under the claim: a replay that finished in between moved the job on.
    const now = await job.getState();
    if (now !== 'failed') throw notFailed(now);
    await job.updateData({ ...job.data, claim });
    await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
  } catch (error) {
    await Promise.resolve(store.release(claim.key, claim.token)).catch(() => {});
    throw error;
  }
  return { eventId, jobId, status: 'replayed' };
}
