import { optionError } from '@sms-webhooks/internal';
import { type Clock, systemClock } from '../base/clock.js';
import { describeError } from '../base/describe-error.js';
import type { Logger } from '../base/logger.js';
import type { AnyWebhookEvent } from '../verify/event-types.js';
import { ownerToken } from './claim-step.js';
import { type DedupeStore, type OrderStore, supportsOrder } from './dedupe-store.js';
import type { QueuedOrder } from './dispatch.js';
import type { OrderClaim } from './handler-registry.js';
import { LeaseKeeper } from './lease-keeper.js';
import { claimVersion } from './order.js';
import { SampledLog } from './sampled-log.js';

/** Called for each job found stale: its event, its object, and the job (the queue's own). */
export type StaleJobHandler<J = unknown> = (
  event: AnyWebhookEvent,
  object: { key: string },
  job: J,
) => unknown;

/** What a {@link JobOrder} orders jobs with: the receiver's store and leases, and who to name in its logs. */
export interface JobOrderOptions<J = unknown> {
  /** The store the receiver orders with (the same versions); without order methods, jobs run unordered. */
  store: DedupeStore | undefined;
  /** The object's lease while a job's handlers run, renewed every `leaseMs / 3`. */
  leaseMs: number;
  /** How long an object's completed version is kept. */
  retainMs: number;
  /** Where a stale job and a failed lease renewal are logged. */
  logger: Logger;
  /** The package, for log lines (`@sms-webhooks/bullmq`). */
  owner: string;
  /** Each stale job. Contained: a hook that throws or rejects is logged. */
  onStale?: StaleJobHandler<J>;
  /** Where the waits and the lease timer take their time. Default the system clock. */
  clock?: Clock;
}

/** The object of a job that runs, held until its handlers end: complete it on success, release it on failure. */
export interface HeldOrder {
  /** What a transactional completion takes: `PostgresStore.transaction({ claim, order }, fn)`. */
  readonly order: OrderClaim;
  /** Stops renewing the lease (the handlers ended). `complete` and `release` call it too. */
  stop(): void;
  /** The object's version advances (never back) and its lease is freed. Never rejects: logged. */
  complete(): Promise<void>;
  /** The lease is freed for the object's next event; the version stays. Never rejects: logged. */
  release(): Promise<void>;
}

/**
 * - `run`: run the handlers; `held` is the object to complete or release after them (absent when the job
 *   is not ordered).
 * - `stale`: a version not older than this job's is completed for its object (the hooks were told);
 *   complete the job without running handlers.
 * - `wait`: another job of the object holds it; put this job back for later without counting an attempt.
 */
export type JobTurn =
  | { readonly action: 'run'; readonly held?: HeldOrder }
  | { readonly action: 'stale'; readonly key: string }
  | { readonly action: 'wait'; readonly key: string };

const RUN: JobTurn = Object.freeze({ action: 'run' });

function isQueuedOrder(value: unknown): value is QueuedOrder {
  const v = value as Partial<QueuedOrder> | null;
  return typeof v?.key === 'string' && v.key !== '' && typeof v.version === 'string' && v.version !== '';
}

/**
 * The receiver's `order` rule where a queue worker runs the jobs (`dispatch` with `order`): each job
 * carries its object and version (`DispatchedEvent.order`), and before its handlers run the worker takes
 * its turn here, with the same store calls as the receiver (`claimOrder`, then `completeOrder` or
 * `releaseOrder`, the lease renewed by `renewOrder`).
 */
export class JobOrder<J = unknown> {
  readonly #opts: JobOrderOptions<J>;
  readonly #sampled: SampledLog;
  readonly #leases: LeaseKeeper;
  #warnedNoStore = false;

  constructor(opts: JobOrderOptions<J>) {
    this.#opts = opts;
    this.#sampled = new SampledLog(opts.logger, opts.clock ?? systemClock);
    const store = opts.store;
    this.#leases = new LeaseKeeper(
      { renew: store?.renewOrder?.bind(store) },
      opts.leaseMs,
      opts.logger,
      opts.clock ?? systemClock,
    );
  }

  /**
   * This job's turn. `slot` is the job's `order` as stored (checked here: a queue's data is only JSON).
   * Rejects when the store fails: fail the job, so that the queue retries it.
   */
  async turn(event: AnyWebhookEvent, slot: unknown, job: J): Promise<JobTurn> {
    if (slot === undefined || slot === null) return RUN;
    const { store, owner, leaseMs } = this.#opts;
    if (!isQueuedOrder(slot)) {
      this.#sampled.warn(
        'unordered jobs',
        () => `${owner}: the order slot of ${event.id} is unreadable; run without ordering.`,
      );
      return RUN;
    }
    if (store === undefined || !supportsOrder(store)) {
      if (!this.#warnedNoStore) {
        this.#warnedNoStore = true;
        this.#opts.logger.warn(
          `${owner}: jobs carry order slots (the receiver has \`order\`) but this worker's store keeps no versions; they run unordered. Pass the receiver's store.`,
        );
      }
      return RUN;
    }
    const { key, version } = slot;
    const token = ownerToken();
    const result = await store.claimOrder(key, claimVersion(version), token, leaseMs);
    if (result === 'in-flight') return { action: 'wait', key };
    if (result === 'stale') {
      this.#stale(event, key, job);
      return { action: 'stale', key };
    }
    return { action: 'run', held: this.#hold(store, { key, version, token }) };
  }

  #stale(event: AnyWebhookEvent, key: string, job: J): void {
    const { owner, onStale, logger } = this.#opts;
    this.#sampled.warn(
      'stale jobs',
      () =>
        `${owner}: ${event.id} (${event.type}) is older than the newest event completed for ${key}; completed as stale, no handler ran.`,
    );
    if (onStale === undefined) return;
    try {
      Promise.resolve(onStale(event, { key }, job)).catch((e: unknown) =>
        logger.error(`${owner}: an onStale hook failed: ${describeError(e)}`),
      );
    } catch (e) {
      logger.error(`${owner}: an onStale hook failed: ${describeError(e)}`);
    }
  }

  #hold(store: OrderStore, order: OrderClaim): HeldOrder {
    const { retainMs, logger, owner } = this.#opts;
    const lease = this.#leases.hold(order.key, order.token);
    const failed = (what: string) => (error: unknown) =>
      logger.error(`${owner}: could not ${what} ${order.key}: ${describeError(error)}`);
    return {
      order,
      stop: () => lease?.release(),
      async complete() {
        lease?.release();
        await Promise.resolve()
          .then(() => store.completeOrder(order.key, order.version, order.token, retainMs))
          .catch(failed('advance the version of'));
      },
      async release() {
        lease?.release();
        await Promise.resolve()
          .then(() => store.releaseOrder(order.key, order.token))
          .catch(failed('release'));
      },
    };
  }
}

/**
 * Start-up check for a worker built from a receiver: with `order`, the worker's store must keep versions
 * (a worker given another store than the receiver's).
 */
export function checkJobOrder(owner: string, receiverOrders: boolean, store: DedupeStore | undefined): void {
  if (!receiverOrders || (store !== undefined && supportsOrder(store))) return;
  throw optionError(
    owner,
    `the receiver has \`order\`, so its jobs carry versions, but the worker's \`store\` keeps none (${store === undefined ? 'no store' : `${store.constructor?.name ?? 'this store'} has no claimOrder, completeOrder, releaseOrder and renewOrder`}). Pass the receiver's store: MemoryStore only within one process, RedisStore or PostgresStore across them.`,
  );
}

/** A wait of about `ms` (±50%), so that jobs put back together do not all come back together. */
export function jitteredWaitMs(ms: number): number {
  return Math.round(ms * (0.5 + Math.random()));
}
