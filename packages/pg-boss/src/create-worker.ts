import type { AnyWebhookEvent, DedupeStore, Logger, Receiver } from '@sms-webhooks/core';
import { createQueueWorker, type QueueWorker, type WebhookHandlers } from '@sms-webhooks/core/queue';
import { offWork, type PgBossWorkers, type WebhookJob, work } from './boss.js';
import { PgBossHandOffError } from './errors.js';
import { DEFAULT_QUEUE_NAME, readJobData } from './job-data.js';
import { positiveInteger } from './option-checks.js';
import { completeOrdered, type PgBossCompleter } from './ordered-completion.js';
import { storableError } from './storable-error.js';

export type { WebhookJob };

/** Which queue {@link createWorker} works, how many jobs it runs at once, and where it completes the claims. */
export interface CreateWorkerOptions {
  /** The queue, as given to `enqueueTo`. Default 'sms-webhooks'. */
  queue?: string;
  /** Jobs this process runs at once (one pg-boss worker each). Default 1. */
  concurrency?: number;
  /** How often an idle worker looks for jobs, in seconds (pg-boss's `pollingIntervalSeconds`). Default 2. */
  pollingIntervalSeconds?: number;
  /** Where to complete the dedupe record. Default the receiver's store; with a handler map, none. */
  store?: DedupeStore;
  /** How long a completed event id is remembered. Default the receiver's, or 24 h. */
  retainMs?: number;
  /**
   * Called once per job whose last attempt failed. Never rethrown. Default: the receiver's `onError`
   * hooks (with a WebhookHandlerError), or a logged line with a handler map.
   */
  onError?: (error: unknown, job: WebhookJob) => unknown;
  /**
   * With `order`: the lease on a job's object while its handlers run, renewed every `leaseMs / 3`; a
   * worker that dies holds it until it runs out. Default the receiver's, or 5 min.
   */
  leaseMs?: number;
  /**
   * Called for each job found stale (the receiver has `order`, and a newer event of its object completed):
   * the job completes without running handlers. Default: the receiver's `onStale` hooks.
   */
  onStale?: (event: AnyWebhookEvent, object: { key: string }, job: WebhookJob) => unknown;
  /**
   * With `order`: while another job holds a job's object, the job stays active here and asks again every
   * `orderWaitMs` (±50%), spending no attempt, for up to half its `expireInSeconds`. Default 1000 ms.
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
}

/** What `createWorker` resolves with: the pg-boss worker ids, and `close()` for shutdown. */
export interface WebhookWorker {
  /** The pg-boss worker ids, one per `concurrency`. */
  readonly ids: readonly string[];
  /** Stops fetching, then waits for the jobs running here and their failure reports. */
  close(): Promise<void>;
}

/**
 * pg-boss workers that run the typed handlers for each queued event, with pg-boss's retries. On success
 * the event's dedupe record is completed; when the last attempt fails the record is released and the
 * failure reported, and the job stays in pg-boss's failed state (see `listFailed`, `replayFailed`).
 */
export async function createWorker(
  source: Receiver | WebhookHandlers,
  boss: PgBossWorkers & Partial<PgBossCompleter>,
  options: CreateWorkerOptions = {},
): Promise<WebhookWorker> {
  if (typeof boss?.work !== 'function' || typeof boss.offWork !== 'function') {
    throw new PgBossHandOffError(
      'ERR_SMS_PGBOSS_OPTIONS',
      'createWorker(receiver, boss) needs a started PgBoss.',
    );
  }
  const concurrency = positiveInteger('concurrency', options.concurrency, 1);
  for (const name of ['leaseMs', 'orderWaitMs'] as const) positiveInteger(name, options[name], 1, 'ms');
  const queue = options.queue ?? DEFAULT_QUEUE_NAME;
  const core: QueueWorker<WebhookJob> = createQueueWorker(source, options, {
    owner: '@sms-webhooks/pg-boss',
    claims: 'keep',
    // Another delivery's claim: its hand-off finds this job and gives the claim up.
    advice: "raise enqueueTo's holdMs above the longest time a job waits and retries.",
    ordered: true,
    failedFor: (job) => `failed after ${job.retryCount + 1} attempt(s) and stays in the failed state`,
    // pg-boss has no way to put a running job back without counting a retry, and a job handed back by a
    // statement of our own could be fetched by another worker before pg-boss's completion of this run.
    waitInPlace: { limitMs: (job) => (job.expireInSeconds * 1000) / 2, limit: 'half its expireInSeconds' },
    completeOrdered: (job, held, record) =>
      completeOrdered(
        { store: core.settings.store!, logger: core.settings.logger, boss, queue },
        job,
        held,
        record,
      ),
  });

  async function runJob(job: WebhookJob): Promise<void> {
    readJobData(job.data); // in place, so the hooks that get the job (onError) see the event too
    const outcome = await core.run(job);
    if (outcome.action !== 'failed') return; // done: a job never waits outside the worker here
    if (job.retryCount >= job.retryLimit) await core.giveUp(job, outcome.error);
    throw storableError(outcome.error);
  }

  // batchSize 1: one job per call, so each job fails or completes on its own.
  const handler = (jobs: WebhookJob[]) => core.track(Promise.all(jobs.map(runJob))).then(() => {});
  const settings = {
    batchSize: 1,
    includeMetadata: true,
    pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2,
  } as const;
  const ids: string[] = [];
  for (let i = 0; i < concurrency; i++) ids.push(await work(boss, queue, settings, handler));
  return {
    ids,
    async close() {
      core.stopWaiting();
      for (const id of ids) await offWork(boss, queue, id);
      // A fetch under way when the worker stopped still hands its job over: wait for that one too.
      await core.drain(100);
    },
  };
}
