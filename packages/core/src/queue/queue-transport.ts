import type { DispatchClaim } from '../receiver/dispatch.js';
import type { HeldOrder } from '../receiver/job-order.js';
import type { QueuedJobData } from './queued-job.js';
import type { ClaimPolicy } from './worker-claim.js';

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
