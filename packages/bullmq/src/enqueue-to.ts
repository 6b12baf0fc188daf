import { type Dispatch, type DispatchedEvent, DispatchTimeoutError } from '@sms-webhooks/core/queue';
import { optionError, positiveOption, withTimeout } from '@sms-webhooks/internal';
import type { BackoffOptions, JobsOptions, KeepJobs, Queue } from 'bullmq';
import { toJobData, type WebhookJobData } from './job-data.js';
import { jobIdFor } from './job-id.js';

/** How {@link enqueueTo} adds each event's job: its retries, how long the hand-off may take, what is kept. */
export interface EnqueueOptions {
  /** Runs per event before it lands in the failed set. Default 8. */
  attempts?: number;
  /** Wait between runs. Default exponential from 2 s: 2, 4, 8 … 128 s (≈ 4 min over 8 attempts). */
  backoff?: number | BackoffOptions;
  /** How long to wait for Redis to take the job before answering 503. Default 5000 ms. */
  timeoutMs?: number;
  /** Completed jobs are kept this long, so BullMQ's own job-id dedupe lasts as long as the store's. Default 24 h. */
  removeOnComplete?: boolean | number | KeepJobs;
  /** Failed (exhausted) jobs are kept for inspection and `job.retry()`. Default false: kept. */
  removeOnFail?: boolean | number | KeepJobs;
  /** Any other BullMQ job option (priority, lifo …). `jobId` is always `jobIdFor(event.id)`. */
  jobOptions?: Omit<JobsOptions, 'jobId'>;
}

const OWNER = { owner: '@sms-webhooks/bullmq', integer: true } as const;

/**
 * A receiver `dispatch` that adds each verified event to a BullMQ queue, job id `jobIdFor(event.id)`:
 * `createReceiver({ secret, store, dispatch: enqueueTo(queue) })`. The receiver answers 200 only once
 * Redis has the job, and 503 (the service retries) when the add fails or times out.
 */
export function enqueueTo(queue: Pick<Queue, 'add'>, options: EnqueueOptions = {}): Dispatch {
  if (typeof queue?.add !== 'function') {
    throw optionError(OWNER.owner, 'enqueueTo(queue) needs a BullMQ Queue.');
  }
  const attempts = positiveOption('attempts', options.attempts, 8, OWNER);
  const timeoutMs = positiveOption('timeoutMs', options.timeoutMs, 5000, { ...OWNER, unit: 'ms' });
  const base: JobsOptions = {
    removeOnComplete: options.removeOnComplete ?? { age: 24 * 60 * 60 },
    removeOnFail: options.removeOnFail ?? false,
    ...options.jobOptions,
    attempts,
    backoff: options.backoff ?? { type: 'exponential', delay: 2000 },
  };

  const dispatch = async (dispatched: DispatchedEvent): Promise<void> => {
    const data: WebhookJobData = toJobData(dispatched);
    // Same id, same job: BullMQ ignores an add whose id it already holds, in any state.
    const add = queue.add(dispatched.event.type, data, { ...base, jobId: jobIdFor(dispatched.event.id) });
    const what = `Adding ${dispatched.event.id} to the queue`;
    // Sent but unanswered, the add may still land (ioredis sends it again after a reconnect), holding
    // this claim: the receiver keeps the claim until the add settles.
    await withTimeout(
      add,
      timeoutMs,
      () => new DispatchTimeoutError(`${what} did not finish within ${timeoutMs} ms`, add),
    );
  };
  // createWorker orders each job by the slot it carries: the receiver may take `order` with this dispatch.
  return Object.assign(dispatch, { appliesOrder: true, keyedByEventId: true });
}
