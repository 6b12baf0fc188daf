import type { AnyWebhookEvent, DedupeStore, Logger, Receiver } from '@sms-webhooks/core';
import { createQueueWorker, type QueueWorker, type WebhookHandlers } from '@sms-webhooks/core/queue';
import { optionError } from '@sms-webhooks/internal';
import { type ConnectionOptions, DelayedError, type Job, Worker, type WorkerOptions } from 'bullmq';
import { isFinalFailure, reportedError, toJobError } from './final-failure.js';
import { DEFAULT_QUEUE_NAME, type WebhookJobData } from './job-data.js';

/** A BullMQ job as {@link createWorker} runs it: its data is {@link WebhookJobData}. */
export type WebhookJob = Job<WebhookJobData, unknown, string>;

/** Where {@link createWorker} consumes from, how many jobs it runs at once, and where it completes the claims. */
export interface CreateWorkerOptions {
  /** BullMQ connection: ioredis options, an ioredis instance or a connection URL object. */
  connection: ConnectionOptions;
  /** Default 'sms-webhooks', as used with `enqueueTo`'s Queue. */
  queue?: string;
  /** Jobs run at once by this worker. Default 1. */
  concurrency?: number;
  /** Where to complete the dedupe record. Default the receiver's store; with a handler map, none. */
  store?: DedupeStore;
  /** How long a completed event id is remembered. Default the receiver's, or 24 h. */
  retainMs?: number;
  /**
   * The lease the job's claim is renewed to while its handlers run (at the start, then every `leaseMs / 3`),
   * so a redelivery meanwhile is answered 409 rather than claiming the event again. Default the receiver's,
   * or 5 min: use the receiving side's `leaseMs`. A worker that dies stops renewing; the claim then runs out.
   */
  leaseMs?: number;
  /**
   * Called once per job that failed for good: last attempt failed, an UnrecoverableError, or stalled
   * more than `maxStalledCount` times. Never rethrown. Default: the receiver's `onError` hooks (with a
   * WebhookHandlerError), or a logged line with a handler map.
   */
  onError?: (error: unknown, job: WebhookJob) => unknown;
  /**
   * Called for each job found stale (the receiver has `order`, and a newer event of its object completed):
   * the job completes without running handlers. Default: the receiver's `onStale` hooks.
   */
  onStale?: (event: AnyWebhookEvent, object: { key: string }, job: WebhookJob) => unknown;
  /**
   * With `order`: how long a job whose object another job holds is put back (delayed, not counted as an
   * attempt) before it tries again, ±50%. Default 1000 ms.
   */
  orderWaitMs?: number;
  /**
   * With a map of handlers: how long one job's run may take before it counts as a failed attempt
   * (retried, then reported), its claims let go and `ctx.signal` aborted. Default 2 min; false: none.
   * With a receiver, its own `handlerTimeoutMs` applies (set it there).
   */
  handlerTimeoutMs?: number | false;
  /** Default the receiver's logger, or console. */
  logger?: Logger;
  /** Any other BullMQ worker option: lockDuration, stalledInterval, maxStalledCount, limiter … */
  workerOptions?: Omit<WorkerOptions, 'connection' | 'concurrency' | 'autorun'> & { autorun?: boolean };
}

const OWNER = '@sms-webhooks/bullmq';

/** A BullMQ Worker whose `close()` also waits for the failure reports (release + onError) it started. */
class WebhookWorker extends Worker<WebhookJobData, unknown, string> {
  constructor(
    readonly core: QueueWorker<WebhookJob>,
    ...args: ConstructorParameters<typeof Worker<WebhookJobData, unknown, string>>
  ) {
    super(...args);
  }

  override async close(force?: boolean): Promise<void> {
    await super.close(force);
    await this.core.drain();
  }
}

/**
 * A BullMQ worker that runs the typed handlers for each queued event, with BullMQ's retries and
 * backoff. On success it completes the event's dedupe record; once a job has failed for good it
 * releases the record and reports it. Returns the BullMQ `Worker`: close it on shutdown.
 */
export function createWorker(
  source: Receiver | WebhookHandlers,
  options: CreateWorkerOptions,
): Worker<WebhookJobData, unknown, string> {
  if (typeof options !== 'object' || options === null || options.connection === undefined) {
    throw optionError(OWNER, 'createWorker needs `connection` (the Redis the queue lives in).');
  }
  const core = createQueueWorker<WebhookJob>(source, options, {
    owner: OWNER,
    claims: 'renew',
    // A redelivery that claimed after the lease ran out added nothing (the job id exists): its claim
    // holds the key until it expires, and only the kept BullMQ job stops a second run meanwhile.
    advice: "raise the receiver's leaseMs above the longest queue wait.",
    ordered: true,
    failedFor: (job) => `failed after ${job.attemptsMade} attempt(s) and stays in the failed set`,
  });
  const worker = new WebhookWorker(
    core,
    options.queue ?? DEFAULT_QUEUE_NAME,
    async (job, token) => {
      const outcome = await core.run(job);
      if (outcome.action === 'wait') {
        // Another job of the object runs: back to the delayed set, without counting an attempt.
        await job.moveToDelayed(Date.now() + outcome.waitMs, token);
        throw new DelayedError();
      }
      if (outcome.action === 'failed') throw toJobError(outcome.error); // retried with backoff
    },
    { ...options.workerOptions, connection: options.connection, concurrency: options.concurrency ?? 1 },
  );
  // BullMQ emits 'failed' once per failed run, after moving the job; only the last one is reported.
  // It is also the only place a job failed without running (stalled too often) becomes visible.
  worker.on('failed', (job, error) => {
    if (job === undefined || job.data?.event === undefined || !isFinalFailure(job, error)) return;
    void core.giveUp(job, reportedError(error));
  });
  // Without a listener an 'error' (Redis gone) would be thrown by the EventEmitter and end the process.
  const { logger } = core.settings;
  worker.on('error', (error) => logger.error(`${OWNER}: worker error: ${error.message}`));
  return worker;
}
