import { describeError } from '../base/describe-error.js';
import { ownerToken } from '../receiver/claim-step.js';
import type { DispatchClaim } from '../receiver/dispatch.js';
import { type Held, LeaseKeeper } from '../receiver/lease-keeper.js';
import { recordCompletion } from '../receiver/record-completion.js';
import type { QueuedJobData } from './queued-job.js';
import type { WorkerSettings } from './worker-settings.js';

/**
 * How an engine's worker treats the claim a job carries:
 * - `renew`: renewed at the start (its lease has run since the receiver claimed, through the queue
 *   wait), then every `leaseMs / 3` while the handlers run; a claim already gone is left alone.
 * - `retake`: the same, and a claim gone (or none) is taken afresh, so that a second copy of the job
 *   (an engine with no job-id dedupe) finds the event done or in flight.
 * - `keep`: left as the hand-off set it (its lease covers the job's life).
 */
export type ClaimPolicy = 'renew' | 'retake' | 'keep';

/** The claim a run holds: its key, its token (none when the job carried none), and its renewal. */
export interface RunClaim {
  readonly key: string;
  readonly token: string | undefined;
  readonly lease?: Held | undefined;
}

type ClaimSettings = Pick<WorkerSettings<never>, 'owner' | 'store' | 'leaseMs' | 'retainMs' | 'logger'>;

/** A worker's dedupe claims: taken before the handlers, recorded done after them, released on giving up. */
export class WorkerClaims {
  readonly #s: ClaimSettings;
  readonly #leases: LeaseKeeper | undefined;
  #warnedNoStore = false;

  constructor(
    settings: ClaimSettings,
    readonly policy: ClaimPolicy,
    readonly advice: string,
  ) {
    this.#s = settings;
    const { store, leaseMs, logger } = settings;
    this.#leases = store === undefined ? undefined : new LeaseKeeper(store, leaseMs, logger);
  }

  /** `completed` and `in-flight` only with `retake`: another copy ran the event, or holds it now. */
  async take({ claim, event }: QueuedJobData): Promise<RunClaim | 'completed' | 'in-flight'> {
    const { store, leaseMs, logger, owner } = this.#s;
    const key = claim?.key ?? event.id;
    const token = claim?.token;
    if (store === undefined) {
      if (claim !== undefined && !this.#warnedNoStore) {
        this.#warnedNoStore = true;
        logger.warn(
          `${owner}: jobs carry dedupe claims but this worker has no \`store\`; pass the receiver's.`,
        );
      }
      return { key, token };
    }
    if (this.policy === 'keep') return { key, token };
    try {
      if (token !== undefined && (store.renew === undefined || (await store.renew(key, token, leaseMs)))) {
        return this.#hold(key, token);
      }
      // Gone: the job runs all the same, and its completion is recorded afresh.
      if (this.policy === 'renew') return { key, token };
      const fresh = ownerToken();
      const claimed = await store.claim(key, fresh, leaseMs);
      return claimed === 'claimed' ? this.#hold(key, fresh) : claimed;
    } catch (error) {
      // The store is down: run all the same (handlers are idempotent by event id).
      logger.error(`${owner}: could not renew the claim on ${event.id}: ${describeError(error)}`);
      return token === undefined ? { key, token } : this.#hold(key, token);
    }
  }

  #hold(key: string, token: string): RunClaim {
    return { key, token, lease: this.#leases?.hold(key, token) };
  }

  /** The run ended: stop renewing. */
  stopRenewing(claim: RunClaim): void {
    claim.lease?.release();
  }

  /** The run succeeded (or the job was stale): a redelivery of the event is a duplicate. Never rejects. */
  async done(claim: RunClaim, eventId: string): Promise<void> {
    const { store, retainMs, logger, owner } = this.#s;
    if (store === undefined) return;
    await recordCompletion(store, { ...claim, eventId }, retainMs, logger, owner, this.advice);
  }

  /** The job failed for good: free the claim, so a redelivery or a replay runs the event. Never rejects. */
  async release(claim: DispatchClaim | undefined, eventId: string): Promise<void> {
    const { store, logger, owner } = this.#s;
    if (store === undefined || claim === undefined) return;
    await Promise.resolve()
      .then(() => store.release(claim.key, claim.token))
      .catch((e) => logger.error(`${owner}: could not release ${eventId}: ${describeError(e)}`));
  }

  /** Keeps the claim through a retry's wait of `waitMs`, so a redelivery meanwhile is answered 409. */
  async extend(claim: DispatchClaim | undefined, waitMs: number): Promise<void> {
    const { store, leaseMs } = this.#s;
    if (claim === undefined) return;
    await Promise.resolve(store?.renew?.(claim.key, claim.token, waitMs + leaseMs)).catch(() => {});
  }
}
