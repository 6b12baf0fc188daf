import type { AnyWebhookEvent, DedupeStore, Logger, Receiver } from '@sms-webhooks/core';
import { WebhookHandlerError } from '@sms-webhooks/core';
import {
  type AdapterReceiver,
  checkJobOrder,
  JobOrder,
  type JobTurn,
  jitteredWaitMs,
  toRunHandlers,
  type WebhookHandlers,
} from '@sms-webhooks/core/queue';
import { offWork, type PgBossWorkers, type WebhookJob, work } from './boss.js';
import { PgBossHandOffError } from './errors.js';
import { DEFAULT_QUEUE_NAME, readJobData, toHandlerContext, type WebhookJobData } from './job-data.js';
import { positiveInteger } from './option-checks.js';
import { completeOrdered, type PgBossCompleter } from './ordered-completion.js';
import { recordCompletion } from './record-completion.js';

export type { WebhookJob };

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
  readonly ids: readonly string[];
  /** Stops fetching, then waits for the jobs running here and their failure reports. */
  close(): Promise<void>;
}

const DAY_MS = 24 * 60 * 60 * 1000;

// What jsonb refuses in a string: NUL, and half of a surrogate pair on its own.
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what this finds.
const JSONB_REFUSED = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function jsonbText(text: string): string {
  return text.replace(JSONB_REFUSED, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The failure as pg-boss stores it (the job's `output`, jsonb): its name, code and message, with what
 * jsonb refuses escaped. A handler's error built from the event's text, or the `event` a
 * WebhookHandlerError carries, would otherwise make pg-boss's fail statement itself fail, and the job
 * would never reach the failed state.
 */
function storableError(error: unknown): Error {
  const e = (error ?? {}) as { name?: unknown; code?: unknown };
  const stored = new Error(jsonbText(describe(error))) as Error & { code?: string };
  if (typeof e.name === 'string') stored.name = jsonbText(e.name);
  if (typeof e.code === 'string') stored.code = jsonbText(e.code);
  return stored;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
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
  const run = toRunHandlers(source, '@sms-webhooks/pg-boss', { handlerTimeoutMs: options.handlerTimeoutMs });
  const receiver =
    typeof (source as AdapterReceiver).runHandlers === 'function' ? (source as AdapterReceiver) : undefined;
  const store = options.store ?? receiver?.options.store;
  const retainMs = options.retainMs ?? receiver?.options.retainMs ?? DAY_MS;
  const logger: Logger = options.logger ?? receiver?.options.logger ?? console;
  const concurrency = positiveInteger('concurrency', options.concurrency, 1);
  const queue = options.queue ?? DEFAULT_QUEUE_NAME;
  const running = new Set<Promise<unknown>>();
  const owner = '@sms-webhooks/pg-boss';
  // Only a receiver with `order` reports stale jobs: its jobs carry versions, so the store must keep them.
  checkJobOrder(owner, receiver?.reportStale !== undefined, store);
  const leaseMs = positiveInteger('leaseMs', options.leaseMs ?? receiver?.options.leaseMs, 5 * 60_000, 'ms');
  const orderWaitMs = positiveInteger('orderWaitMs', options.orderWaitMs, 1000, 'ms');
  const order = new JobOrder<WebhookJob>({
    store,
    leaseMs,
    retainMs,
    logger,
    owner,
    onStale: options.onStale ?? receiver?.reportStale,
  });
  let closing = false;

  /**
   * The job's turn under `order`. While another job holds its object it waits here, still active: pg-boss
   * has no way to put a running job back without counting a retry, and a job handed back by a statement
   * of our own could be fetched by another worker before pg-boss's own completion of this run reached it.
   */
  async function takeTurn(job: WebhookJob, data: WebhookJobData): Promise<JobTurn> {
    const until = Date.now() + (job.expireInSeconds * 1000) / 2;
    for (;;) {
      const turn = await order.turn(data.event, data.order, job);
      if (turn.action !== 'wait') return turn;
      if (closing || Date.now() >= until) {
        throw new Error(
          `${data.event.id} waited for ${turn.key}, which another job holds, ${closing ? 'until the worker closed' : 'for half its expireInSeconds'}; this attempt ends here.`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, jitteredWaitMs(orderWaitMs)));
    }
  }

  async function report(job: WebhookJob, error: unknown): Promise<void> {
    const { event } = job.data;
    if (options.onError !== undefined) return void (await options.onError(error, job));
    if (typeof receiver?.reportError === 'function') {
      const handlerError =
        (error as Partial<WebhookHandlerError> | null)?.code === 'handler_failed'
          ? (error as WebhookHandlerError)
          : new WebhookHandlerError([error], event);
      return receiver.reportError(handlerError);
    }
    logger.error(
      `@sms-webhooks/pg-boss: ${event.type} ${event.id} failed after ${job.retryCount + 1} attempt(s) and stays in the failed state: ${describe(error)}`,
    );
  }

  /** The last attempt failed: free the claim (a replay takes a new one) and report it, once. */
  async function giveUp(job: WebhookJob, error: unknown): Promise<void> {
    const { claim, event } = job.data;
    if (store && claim) {
      await Promise.resolve()
        .then(() => store.release(claim.key, claim.token))
        .catch((e) => logger.error(`@sms-webhooks/pg-boss: could not release ${event.id}: ${describe(e)}`));
    }
    await report(job, error).catch((e) =>
      logger.error(`@sms-webhooks/pg-boss: an onError hook failed: ${describe(e)}`),
    );
  }

  async function runJob(job: WebhookJob): Promise<void> {
    // In place, so the hooks that get the job (onError) see the event too.
    const data = readJobData(job.data);
    let turn: JobTurn;
    try {
      turn = await takeTurn(job, data);
    } catch (error) {
      if (job.retryCount >= job.retryLimit) await giveUp(job, error);
      throw storableError(error);
    }
    if (turn.action === 'run') {
      try {
        await run(data.event, toHandlerContext(data), data.traceContext);
      } catch (error) {
        await turn.held?.release();
        if (job.retryCount >= job.retryLimit) await giveUp(job, error);
        throw storableError(error);
      }
      if (turn.held !== undefined) {
        return completeOrdered({ store: store!, boss, queue, retainMs, logger }, job, data, turn.held);
      }
    }
    // Ran unordered, or stale (done for good without running: a redelivery of it is a duplicate).
    if (store !== undefined) await recordCompletion(store, data, retainMs, logger);
  }

  const handler = async (jobs: WebhookJob[]) => {
    // batchSize 1: one job per call, so each job fails or completes on its own.
    const work = Promise.all(jobs.map(runJob));
    running.add(work);
    try {
      await work;
    } finally {
      running.delete(work);
    }
  };
  const ids: string[] = [];
  for (let i = 0; i < concurrency; i++) {
    ids.push(
      await work(
        boss,
        queue,
        {
          batchSize: 1,
          includeMetadata: true,
          pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2,
        },
        handler,
      ),
    );
  }
  return {
    ids,
    async close() {
      closing = true;
      for (const id of ids) await offWork(boss, queue, id);
      // A fetch under way when the worker stopped still hands its job over: wait for that one too.
      do {
        await Promise.allSettled([...running]);
        await new Promise((resolve) => setTimeout(resolve, 100));
      } while (running.size > 0);
    },
  };
}
