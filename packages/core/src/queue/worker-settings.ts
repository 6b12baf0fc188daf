import { positiveOption } from '@sms-webhooks/internal';
import type { Logger } from '../base/logger.js';
import type { DedupeStore } from '../receiver/dedupe-store.js';
import { type RunHandlers, toRunHandlers, type WebhookHandlers } from '../receiver/handler-map.js';
import { checkJobOrder, type StaleJobHandler } from '../receiver/job-order.js';
import type { AdapterReceiver, Receiver } from '../receiver/receiver.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const DEFAULT_LEASE_MS = 5 * 60 * 1000;

/** The options every queue package's `createWorker` takes; `J` is the engine's job, as its hooks get it. */
export interface QueueWorkerOptions<J> {
  /** Where to complete the dedupe record. Default the receiver's store; with a handler map, none. */
  store?: DedupeStore;
  /** How long a completed event id is remembered. Default the receiver's, or 24 h. */
  retainMs?: number;
  /** The lease a job's claims are renewed to while its handlers run. Default the receiver's, or 5 min. */
  leaseMs?: number;
  /** Called once per job that failed for good. Never rethrown. Default the receiver's `onError` hooks. */
  onError?: (error: unknown, job: J) => unknown;
  /** Called for each job found stale under `order`. Default the receiver's `onStale` hooks. */
  onStale?: StaleJobHandler<J>;
  /** With `order`: how long a job whose object another job holds waits before it asks again, ±50%. */
  orderWaitMs?: number;
  /** With a map of handlers: how long one run may take. Default 2 min; false: none. */
  handlerTimeoutMs?: number | false;
  /** Default the receiver's logger, or console. */
  logger?: Logger;
}

/** A worker's options resolved against its source: a receiver lends its store, leases and hooks. */
export interface WorkerSettings<J> {
  readonly owner: string;
  readonly run: RunHandlers;
  readonly receiver: AdapterReceiver | undefined;
  readonly store: DedupeStore | undefined;
  readonly retainMs: number;
  readonly leaseMs: number;
  readonly orderWaitMs: number;
  readonly logger: Logger;
  /** The worker's `onError`, or the receiver's hooks; undefined when neither has one. */
  readonly onError: ((error: unknown, job: J) => unknown) | undefined;
  readonly onStale: StaleJobHandler<J> | undefined;
}

/**
 * Checks and resolves a worker's options; throws `ERR_SMS_OPTIONS` errors starting with `owner`. `ordered`:
 * the engine's jobs carry the receiver's `order` slots, so its store must keep versions.
 */
export function workerSettings<J>(
  source: Receiver | WebhookHandlers,
  options: QueueWorkerOptions<J>,
  owner: string,
  ordered: boolean,
): WorkerSettings<J> {
  const run = toRunHandlers(source, owner, { handlerTimeoutMs: options.handlerTimeoutMs });
  const receiver =
    typeof (source as AdapterReceiver).runHandlers === 'function' ? (source as AdapterReceiver) : undefined;
  const store = options.store ?? receiver?.options.store;
  const ms = { owner, integer: true, unit: 'ms' } as const;
  const leaseMs = positiveOption(
    'leaseMs',
    options.leaseMs ?? receiver?.options.leaseMs,
    DEFAULT_LEASE_MS,
    ms,
  );
  // Only a receiver with `order` reports stale jobs: its jobs carry versions, so the store must keep them.
  if (ordered) checkJobOrder(owner, receiver?.reportStale !== undefined, store);
  return {
    owner,
    run,
    receiver,
    store,
    retainMs: options.retainMs ?? receiver?.options.retainMs ?? DAY_MS,
    leaseMs,
    orderWaitMs: positiveOption('orderWaitMs', options.orderWaitMs, 1000, ms),
    logger: options.logger ?? receiver?.options.logger ?? console,
    onError: options.onError,
    onStale: options.onStale ?? receiver?.reportStale,
  };
}
