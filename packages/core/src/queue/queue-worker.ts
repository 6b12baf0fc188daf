import type { DispatchClaim } from '../receiver/dispatch.js';
import type { WebhookHandlers } from '../receiver/handler-map.js';
import { type HeldOrder, JobOrder, type JobTurn, jitteredWaitMs } from '../receiver/job-order.js';
import type { Receiver } from '../receiver/receiver.js';
import { reportFailure } from './failure-report.js';
import { type QueuedJobData, toHandlerContext } from './queued-job.js';
import { type ClaimPolicy, type RunClaim, WorkerClaims } from './worker-claim.js';
import { type QueueWorkerOptions, type WorkerSettings, workerSettings } from './worker-settings.js';

/** A queue engine's job, as its hooks get it: `data` is what the hand-off stored. */
export interface QueuedJob {
  readonly data: QueuedJobData;
}

/** What a queue engine tells the worker core about its jobs. */
export interface QueueTransport<J extends QueuedJob> {
  /** The package (`@sms-webhooks/bullmq`): starts errors and log lines. */
  readonly owner: string;
  /** How the job's dedupe claim is kept while it runs. */
  readonly claims: ClaimPolicy;
  /** Which lease to raise when another claim holds a finished job's key (logged with the warning). */
  readonly advice: string;
  /** Whether jobs carry the receiver's `order` slots: the worker's store must then keep versions. */
  readonly ordered?: boolean;
  /** Where a job failed for good stays, for the log line when no hook reports it. */
  failedFor(job: J): string;
  /**
   * An engine that cannot put a running job back without counting an attempt: a job whose object another
   * job holds waits here, asking again every `orderWaitMs`, for up to `limitMs(job)` (`limit` says what
   * that is), then the attempt fails. Without it, such a job comes back as a `wait` outcome.
   */
  readonly waitInPlace?: {
    /** How long `job` may wait in place, in ms. */
    limitMs(job: J): number;
    /** What that limit is, for the failure's message (`the job's lock duration`). */
    readonly limit: string;
  };
  /** Completes an ordered job whose handlers succeeded (pg-boss: in one transaction); `record` completes its claim. */
  completeOrdered?(job: J, held: HeldOrder, record: () => Promise<void>): Promise<void>;
}

/**
 * - `done`: ran, stale, or run already by another copy: acknowledge it.
 * - `wait`: another job holds its claim or its object: put it back for about `waitMs`, counting no attempt.
 * - `failed`: a failed attempt (its claims are let go, `claim` kept for `giveUp`): retry it, or fail it.
 */
export type JobOutcome =
  | { readonly action: 'done' }
  | { readonly action: 'wait'; readonly key: string; readonly waitMs: number }
  | { readonly action: 'failed'; readonly error: unknown; readonly claim: DispatchClaim | undefined };

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

const DONE: JobOutcome = Object.freeze({ action: 'done' });

function heldClaim({ key, token }: RunClaim): DispatchClaim | undefined {
  return token === undefined ? undefined : { key, token };
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
  const { store, leaseMs, retainMs, logger, orderWaitMs } = s;
  const order = new JobOrder<J>({ store, leaseMs, retainMs, logger, owner, onStale: s.onStale });
  const tracked = new Set<Promise<unknown>>();
  let closing = false;

  async function takeTurn(job: J, data: QueuedJobData): Promise<JobTurn> {
    const wait = transport.waitInPlace;
    const until = wait === undefined ? 0 : Date.now() + wait.limitMs(job);
    for (;;) {
      const turn = await order.turn(data.event, data.order, job);
      if (turn.action !== 'wait' || wait === undefined) return turn;
      if (closing || Date.now() >= until) {
        throw new Error(
          `${data.event.id} waited for ${turn.key}, which another job holds, ${closing ? 'until the worker closed' : `for ${wait.limit}`}; this attempt ends here.`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, jitteredWaitMs(orderWaitMs)));
    }
  }

  async function run(job: J): Promise<JobOutcome> {
    const { data } = job;
    const claim = await claims.take(data);
    if (claim === 'completed') return DONE;
    if (claim === 'in-flight') {
      return { action: 'wait', key: data.claim?.key ?? data.event.id, waitMs: jitteredWaitMs(orderWaitMs) };
    }
    let turn: JobTurn;
    try {
      turn = await takeTurn(job, data);
    } catch (error) {
      claims.stopRenewing(claim);
      return { action: 'failed', error, claim: heldClaim(claim) }; // the store failed: retried
    }
    if (turn.action === 'wait') {
      claims.stopRenewing(claim);
      return { action: 'wait', key: turn.key, waitMs: jitteredWaitMs(orderWaitMs) };
    }
    if (turn.action === 'run') {
      try {
        await s.run(data.event, toHandlerContext(data), data.traceContext);
      } catch (error) {
        await turn.held?.release();
        return { action: 'failed', error, claim: heldClaim(claim) };
      } finally {
        claims.stopRenewing(claim);
      }
      const record = () => claims.done(claim, data.event.id);
      if (turn.held !== undefined && transport.completeOrdered !== undefined) {
        await transport.completeOrdered(job, turn.held, record);
        return DONE;
      }
      await turn.held?.complete();
    } else claims.stopRenewing(claim);
    // Ran, or stale (done for good without running): either way a redelivery of it is a duplicate.
    await claims.done(claim, data.event.id);
    return DONE;
  }

  function track<T>(work: Promise<T>): Promise<T> {
    tracked.add(work);
    void work.then(
      () => tracked.delete(work),
      () => tracked.delete(work),
    );
    return work;
  }

  return {
    settings: s,
    run,
    giveUp(job, error, claim) {
      const { event, claim: carried } = job.data;
      return track(
        claims
          .release(claim ?? carried, event.id)
          .then(() => reportFailure(s, job, event, error, transport.failedFor(job))),
      );
    },
    extendClaim: (claim, waitMs) => claims.extend(claim, waitMs),
    track,
    stopWaiting() {
      closing = true;
    },
    async drain(graceMs = 0) {
      closing = true;
      do {
        await Promise.allSettled([...tracked]);
        if (graceMs > 0) await new Promise((resolve) => setTimeout(resolve, graceMs));
      } while (tracked.size > 0);
    },
  };
}
