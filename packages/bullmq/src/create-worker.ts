import type { AnyWebhookEvent, DedupeStore, Logger, Receiver } from '@sms-webhooks/core';
import {
  type AdapterReceiver,
  checkJobOrder,
  JobOrder,
  type JobTurn,
  jitteredWaitMs,
  LeaseKeeper,
  optionError,
  positiveOption,
  recordCompletion,
  toRunHandlers,
  type WebhookHandlers,
} from '@sms-webhooks/core/queue';
import { type ConnectionOptions, DelayedError, type Job, Worker, type WorkerOptions } from 'bullmq';
import { isFinalFailure, reportedError, toHandlerError, toJobError } from './final-failure.js';
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

const DAY_MS = 24 * 60 * 60 * 1000;
const DEFAULT_LEASE_MS = 5 * 60 * 1000;

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A BullMQ Worker whose `close()` also waits for the failure reports (release + onError) it started. */
class WebhookWorker extends Worker<WebhookJobData, unknown, string> {
  readonly #reports = new Set<Promise<void>>();

  track(report: Promise<void>): void {
    this.#reports.add(report);
    report.finally(() => this.#reports.delete(report));
  }

  override async close(force?: boolean): Promise<void> {
    await super.close(force);
    await Promise.allSettled([...this.#reports]);
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
    throw optionError(
      '@sms-webhooks/bullmq',
      'createWorker needs `connection` (the Redis the queue lives in).',
    );
  }
  const run = toRunHandlers(source, '@sms-webhooks/bullmq', { handlerTimeoutMs: options.handlerTimeoutMs });
  const receiver =
    typeof (source as AdapterReceiver).runHandlers === 'function' ? (source as AdapterReceiver) : undefined;
  const store = options.store ?? receiver?.options.store;
  const retainMs = options.retainMs ?? receiver?.options.retainMs ?? DAY_MS;
  const leaseMs = positiveOption('leaseMs', options.leaseMs ?? receiver?.options.leaseMs, DEFAULT_LEASE_MS, {
    owner: '@sms-webhooks/bullmq',
    integer: true,
    unit: 'ms',
  });
  const logger: Logger = options.logger ?? receiver?.options.logger ?? console;
  const owner = '@sms-webhooks/bullmq';
  // Only a receiver with `order` reports stale jobs: its jobs carry versions, so the store must keep them.
  checkJobOrder(owner, receiver?.reportStale !== undefined, store);
  const orderWaitMs = positiveOption('orderWaitMs', options.orderWaitMs, 1000, {
    owner,
    integer: true,
    unit: 'ms',
  });
  const onStale = options.onStale;
  const order = new JobOrder<WebhookJob>({
    store,
    leaseMs,
    retainMs,
    logger,
    owner,
    onStale: onStale ?? receiver?.reportStale,
  });
  let warnedNoStore = false;

  async function complete(data: WebhookJobData): Promise<void> {
    if (store !== undefined) {
      const job = { key: data.claim?.key ?? data.event.id, token: data.claim?.token, eventId: data.event.id };
      // A redelivery that claimed after the lease ran out added nothing (the job id exists): its claim
      // holds the key until it expires, and only the kept BullMQ job stops a second run meanwhile.
      const advice = "raise the receiver's leaseMs above the longest queue wait.";
      return recordCompletion(store, job, retainMs, logger, '@sms-webhooks/bullmq', advice);
    }
    if (data.claim && !warnedNoStore) {
      warnedNoStore = true;
      logger.warn(
        '@sms-webhooks/bullmq: jobs carry dedupe claims but this worker has no `store`; pass the same store the receiver uses.',
      );
    }
  }

  const leases = store === undefined ? undefined : new LeaseKeeper(store, leaseMs, logger);

  /**
   * Keeps the job's claim alive while its handlers run (release the result when they end). Renewed once
   * at the start, because its lease has been running since the receiver claimed, through the queue wait;
   * then every `leaseMs / 3` on the keeper's timer. A claim already gone is left alone: the job runs all
   * the same, and `recordCompletion` records the outcome afresh.
   */
  async function holdClaim({ claim, event }: WebhookJobData) {
    if (leases === undefined || claim === undefined || store?.renew === undefined) return undefined;
    try {
      if (!(await store.renew(claim.key, claim.token, leaseMs))) return undefined;
    } catch (error) {
      logger.error(`@sms-webhooks/bullmq: could not renew the claim on ${event.id}: ${describe(error)}`);
    }
    return leases.hold(claim.key, claim.token);
  }

  async function report(job: WebhookJob, error: unknown): Promise<void> {
    const { event } = job.data;
    if (options.onError !== undefined) return void (await options.onError(error, job));
    if (typeof receiver?.reportError === 'function')
      return receiver.reportError(toHandlerError(error, event));
    logger.error(
      `@sms-webhooks/bullmq: ${event.type} ${event.id} failed after ${job.attemptsMade} attempt(s) and stays in the failed set: ${describe(error)}`,
    );
  }

  async function giveUp(job: WebhookJob, error: unknown): Promise<void> {
    const { claim, event } = job.data;
    if (store && claim) {
      await Promise.resolve()
        .then(() => store.release(claim.key, claim.token))
        .catch((e) => logger.error(`@sms-webhooks/bullmq: could not release ${event.id}: ${describe(e)}`));
    }
    await report(job, error).catch((e) =>
      logger.error(`@sms-webhooks/bullmq: an onError hook failed: ${describe(e)}`),
    );
  }

  const worker = new WebhookWorker(
    options.queue ?? DEFAULT_QUEUE_NAME,
    async (job, token) => {
      const lease = await holdClaim(job.data);
      let turn: JobTurn;
      try {
        turn = await order.turn(job.data.event, job.data.order, job);
      } catch (error) {
        leases?.release(lease);
        throw error; // the store failed: a failed attempt, retried with backoff
      }
      if (turn.action === 'wait') {
        // Another job of the object runs: back to the delayed set, without counting an attempt.
        leases?.release(lease);
        await job.moveToDelayed(Date.now() + jitteredWaitMs(orderWaitMs), token);
        throw new DelayedError();
      }
      if (turn.action === 'run') {
        try {
          await run(job.data.event, toHandlerContext(job.data), job.data.traceContext);
        } catch (error) {
          await turn.held?.release();
          throw toJobError(error);
        } finally {
          leases?.release(lease);
        }
        await turn.held?.complete();
      } else leases?.release(lease);
      // Ran, or stale (done for good without running): either way a redelivery of it is a duplicate.
      await complete(job.data);
    },
    { ...options.workerOptions, connection: options.connection, concurrency: options.concurrency ?? 1 },
  );
  // BullMQ emits 'failed' once per failed run, after moving the job; only the last one is reported.
  // It is also the only place a job failed without running (stalled too often) becomes visible.
  worker.on('failed', (job, error) => {
    if (job === undefined || job.data?.event === undefined || !isFinalFailure(job, error)) return;
    worker.track(giveUp(job, reportedError(error)));
  });
  // Without a listener an 'error' (Redis gone) would be thrown by the EventEmitter and end the process.
  worker.on('error', (error) => logger.error(`@sms-webhooks/bullmq: worker error: ${describe(error)}`));
  return worker;
}
