import { randomUUID } from 'node:crypto';
import type { DedupeStore, Logger, Receiver } from '@sms-webhooks/core';
import { type ConnectionOptions, type Job, Worker, type WorkerOptions } from 'bullmq';
import { toRunHandlers, type WebhookHandlers } from './handler-map.js';
import { DEFAULT_QUEUE_NAME, toHandlerContext, type WebhookJobData } from './job-data.js';

export type WebhookJob = Job<WebhookJobData, unknown, string>;

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
  /** Called once per job that failed its last attempt (or was unrecoverable). Never rethrown. */
  onError?: (error: unknown, job: WebhookJob) => unknown;
  /** Default the receiver's logger, or console. */
  logger?: Logger;
  /** Any other BullMQ worker option: lockDuration, stalledInterval, maxStalledCount, limiter … */
  workerOptions?: Omit<WorkerOptions, 'connection' | 'concurrency' | 'autorun'> & { autorun?: boolean };
}

const DAY_MS = 24 * 60 * 60 * 1000;
// Only for recording a completion whose original claim ran out; a single round trip follows.
const RECORD_LEASE_MS = 60_000;

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function isLastAttempt(job: WebhookJob, error: unknown): boolean {
  if ((error as Error | null)?.name === 'UnrecoverableError') return true;
  return job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}

/**
 * A BullMQ worker that runs the typed handlers for each queued event, with BullMQ's retries and
 * backoff. On success it completes the event's dedupe record; on the last failed attempt it releases
 * it and calls `onError`. Returns the BullMQ `Worker`: close it on shutdown (`await worker.close()`).
 */
export function createWorker(
  source: Receiver | WebhookHandlers,
  options: CreateWorkerOptions,
): Worker<WebhookJobData, unknown, string> {
  if (typeof options !== 'object' || options === null || options.connection === undefined) {
    throw new TypeError(
      '@sms-webhooks/bullmq: createWorker needs `connection` (the Redis the queue lives in).',
    );
  }
  const run = toRunHandlers(source);
  const fromReceiver =
    typeof (source as Receiver).runHandlers === 'function' ? (source as Receiver).options : undefined;
  const store = options.store ?? fromReceiver?.store;
  const retainMs = options.retainMs ?? fromReceiver?.retainMs ?? DAY_MS;
  const logger: Logger = options.logger ?? fromReceiver?.logger ?? console;
  const onError = options.onError;
  let warnedNoStore = false;

  async function complete(data: WebhookJobData): Promise<void> {
    if (store === undefined) {
      if (data.claim && !warnedNoStore) {
        warnedNoStore = true;
        logger.warn(
          '@sms-webhooks/bullmq: jobs carry dedupe claims but this worker has no `store`; pass the same store the receiver uses.',
        );
      }
      return;
    }
    const key = data.claim?.key ?? data.event.id;
    try {
      if (data.claim && (await store.complete(key, data.claim.token, retainMs))) return;
      // The claim's lease ran out while the job waited (or there was none): record the completion anyway.
      const token = randomUUID();
      if ((await store.claim(key, token, RECORD_LEASE_MS)) === 'claimed')
        await store.complete(key, token, retainMs);
    } catch (error) {
      // The handlers ran; failing the job now would run them again. BullMQ's job id still dedupes.
      logger.error(`@sms-webhooks/bullmq: could not record ${data.event.id} as done: ${describe(error)}`);
    }
  }

  async function giveUp(job: WebhookJob, error: unknown): Promise<void> {
    const { claim, event } = job.data;
    if (store && claim) {
      await Promise.resolve()
        .then(() => store.release(claim.key, claim.token))
        .catch((e) => logger.error(`@sms-webhooks/bullmq: could not release ${event.id}: ${describe(e)}`));
    }
    if (onError === undefined) {
      logger.error(
        `@sms-webhooks/bullmq: ${event.type} ${event.id} failed after ${job.attemptsMade + 1} attempt(s) and stays in the failed set: ${describe(error)}`,
      );
      return;
    }
    try {
      await onError(error, job);
    } catch (e) {
      logger.error(`@sms-webhooks/bullmq: an onError hook failed: ${describe(e)}`);
    }
  }

  const worker = new Worker<WebhookJobData, unknown, string>(
    options.queue ?? DEFAULT_QUEUE_NAME,
    async (job) => {
      try {
        await run(job.data.event, toHandlerContext(job.data));
      } catch (error) {
        if (isLastAttempt(job, error)) await giveUp(job, error);
        throw error;
      }
      await complete(job.data);
    },
    { ...options.workerOptions, connection: options.connection, concurrency: options.concurrency ?? 1 },
  );
  // Without a listener an 'error' (Redis gone) would be thrown by the EventEmitter and end the process.
  worker.on('error', (error) => logger.error(`@sms-webhooks/bullmq: worker error: ${describe(error)}`));
  return worker;
}
