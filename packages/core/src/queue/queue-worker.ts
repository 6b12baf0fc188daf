import type { DispatchClaim } from '../receiver/dispatch.js';
import type { WebhookHandlers } from '../receiver/handler-map.js';
import { JobOrder } from '../receiver/job-order.js';
import type { Receiver } from '../receiver/receiver.js';
import { reportFailure } from './failure-report.js';
import { type JobRunner, runJob } from './job-run.js';
import type { JobOutcome, QueuedJob, QueueTransport } from './queue-transport.js';
import { TrackedWork } from './tracked-work.js';
import { WorkerClaims } from './worker-claim.js';
import { type QueueWorkerOptions, type WorkerSettings, workerSettings } from './worker-settings.js';

/** What `createQueueWorker` returns: a transport calls `run` for each job and acts on its outcome. */
export interface QueueWorker<J extends QueuedJob> {
  readonly settings: WorkerSettings<J>;
  /** Claims, orders and runs one job, and records it done; rejects only when the engine's own calls do. */
  run(job: J): Promise<JobOutcome>;
  /** The job failed for good: frees its claim (default the one it carries) and reports it. Never rejects. */
  giveUp(job: J, error: unknown, claim?: DispatchClaim): Promise<void>;
  /** Keeps a failed job's claim through its retry's wait. */
  extendClaim(claim: DispatchClaim | undefined, waitMs: number): Promise<void>;
  /** Work `drain` waits for (`giveUp` is tracked by itself; a run is not, as a force-close leaves it). */
  track<T>(work: Promise<T>): Promise<T>;
  /** Jobs waiting in place for their object stop waiting: their attempt fails. */
  stopWaiting(): void;
  /** `stopWaiting`, then resolves once all tracked work settled, `graceMs` after the last. */
  drain(graceMs?: number): Promise<void>;
}

/**
 * The queue worker, for writing a transport to a queue engine of your own: the BullMQ, pg-boss and
 * RabbitMQ packages each keep only their transport (ack, retry with a delay, fail, the failed set) around
 * it. The transport calls `run(job)` for each job its engine hands over and acts on the `JobOutcome`
 * (`done`: acknowledge; `wait`: put back without counting an attempt; `failed`: retry, or once the engine
 * says it was the last attempt, `giveUp`), and calls `drain` when it closes. Each job's claim is taken and held
 * (`transport.claims`), its turn under `order` taken, its handlers run under the time-out, then its
 * completion recorded; a failed attempt lets its claims go and, once the engine says it was the last,
 * `giveUp` frees the claim and reports it.
 */
export function createQueueWorker<J extends QueuedJob>(
  source: Receiver | WebhookHandlers,
  options: QueueWorkerOptions<J>,
  transport: QueueTransport<J>,
): QueueWorker<J> {
  const { owner } = transport;
  const s = workerSettings(source, options, owner, transport.ordered === true);
  const claims = new WorkerClaims(s, transport.claims, transport.advice);
  const { store, leaseMs, retainMs, logger } = s;
  const order = new JobOrder<J>({ store, leaseMs, retainMs, logger, owner, onStale: s.onStale });
  const work = new TrackedWork();
  const runner: JobRunner<J> = { s, claims, order, transport, closing: () => work.closing };

  return {
    settings: s,
    run: (job) => runJob(runner, job),
    giveUp(job, error, claim) {
      const { event, claim: carried } = job.data;
      return work.track(
        claims
          .release(claim ?? carried, event.id)
          .then(() => reportFailure(s, job, event, error, transport.failedFor(job))),
      );
    },
    extendClaim: (claim, waitMs) => claims.extend(claim, waitMs),
    track: (w) => work.track(w),
    stopWaiting() {
      work.closing = true;
    },
    drain: (graceMs) => work.drain(graceMs),
  };
}
