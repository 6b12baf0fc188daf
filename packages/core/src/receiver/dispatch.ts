import { isPromiseLike } from '@sms-webhooks/internal';
import type { AnyWebhookEvent } from '../verify/event-types.js';
import type { HandlerContext } from './handler-registry.js';
import type { TraceContext } from './instrumentation.js';

/** The dedupe claim a dispatched event holds; whoever runs the handlers completes or releases it. */
export interface DispatchClaim {
  /** The store key the event is claimed under. */
  key: string;
  /** The claim's token: only its holder can complete, renew or release it. */
  token: string;
}

/** What the receiver's `dispatch` gets for each verified, claimed event: all a worker needs to run it later. */
export interface DispatchedEvent {
  /** The verified event. */
  event: AnyWebhookEvent;
  /** The handler context the handlers would have had (attempt, tenant, receivedAt). */
  ctx: HandlerContext;
  /** Absent when the store was down and `onStoreError: 'process'` let the event through without dedupe. */
  claim?: DispatchClaim;
  /** The delivery's trace context, when the receiver's instrumentation gives one: keep it with the event. */
  traceContext?: TraceContext;
  /**
   * With the receiver's `order`: the object this event updates and its version, for the worker that runs
   * the job to order it (`JobOrder`). Absent for events `order` leaves out (replies, no `updated_at`).
   */
  order?: QueuedOrder;
}

/** An event's object slot as a job carries it: the receiver's `order` key and encoded version. */
export interface QueuedOrder {
  /** The object's key. */
  key: string;
  /** Encoded by the receiver so that versions compare as strings (bytewise). */
  version: string;
}

/**
 * Replaces running handlers in this process (`respond` no longer applies): hands a verified, claimed
 * event to somewhere durable, such as a queue. The receiver answers 200 once the promise resolves; when
 * it rejects, it releases the claim and answers 503 store_unavailable so the service retries. The claim
 * is left held on success: the consumer completes it (`store.complete(key, token, retainMs)`). A dispatch
 * that stops waiting while its hand-off may still land rejects with a `DispatchTimeoutError` instead.
 */
export type Dispatch = ((dispatched: DispatchedEvent) => Promise<unknown>) & {
  /**
   * true when the worker on the other side applies `order` to each job it runs (the `enqueueTo` of
   * `@sms-webhooks/bullmq` and `@sms-webhooks/pg-boss`): the receiver takes `order` only with such a
   * dispatch, and leaves the ordering to that worker.
   */
  readonly appliesOrder?: boolean;
  /**
   * True when the hand-off names its jobs by event id alone (the BullMQ, pg-boss and RabbitMQ
   * `enqueueTo`): then `secret` as a function, whose tenants may share an event id, is refused at start-up.
   */
  readonly keyedByEventId?: boolean;
};

const TIMEOUT_CODE = 'ERR_SMS_DISPATCH_TIMEOUT';

/**
 * A dispatch gave up waiting, but its hand-off may still land: a queue add that was sent and not yet
 * answered (ioredis sends unanswered commands again after a reconnect). The receiver answers 503 as for
 * any failure, but releases the claim only if `pending` rejects. If it lands, the queued event carries
 * that claim and its consumer completes it; released, a retry would claim the event under a new token
 * that nobody completes. Matched on `code`, not `instanceof` (two copies of core have two classes).
 */
export class DispatchTimeoutError extends Error {
  /** Always `DispatchTimeoutError`. */
  override readonly name = 'DispatchTimeoutError';
  /** Always `ERR_SMS_DISPATCH_TIMEOUT`: match on it. */
  readonly code = TIMEOUT_CODE;

  constructor(
    message: string,
    /** The hand-off itself, still running. */
    readonly pending: Promise<unknown>,
  ) {
    super(message);
  }
}

/** The hand-off still running behind a dispatch's rejection, if it says so. */
export function pendingDispatch(error: unknown): Promise<unknown> | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, pending } = error as { code?: unknown; pending?: unknown };
  return code === TIMEOUT_CODE && isPromiseLike(pending) ? (pending as Promise<unknown>) : undefined;
}
