import type { AnyWebhookEvent } from '../verify/event-types.js';
import type { HeaderSource } from '../verify/headers.js';
import type { WebhookHandlerError } from './handler-error.js';
import type { AnyWebhookHandler } from './handler-registry.js';
import type { RespondMode } from './modes.js';
import type { ReceiverResponse } from './responses.js';

/**
 * A delivery's trace context as text headers (W3C `traceparent`), for a queue to carry from the receiver
 * to the worker that runs the event. Plain JSON, so it fits in a job's data.
 */
export type TraceContext = Readonly<Record<string, string>>;

/** A queued event a worker is about to run (`receiver.runHandlers` from `@sms-webhooks/bullmq`). */
export interface QueuedRun {
  /** The queued event the worker runs. */
  event: AnyWebhookEvent;
  /** What `DeliveryObserver.traceContext` gave when the event was dispatched, carried by the queue. */
  traceContext?: TraceContext;
}

/** The store operations the receiver runs for a delivery, plus the hand-off to `dispatch`. */
export type StoreOperation =
  | 'claim'
  | 'complete'
  | 'release'
  | 'dispatch'
  | 'claimOrder'
  | 'claimWithOrder'
  | 'completeWithOrder'
  | 'completeOrder'
  | 'releaseOrder';

/** What the receiver says about itself with each delivery (one frozen object per receiver). */
export interface InstrumentedReceiver {
  /** The dedupe store's class name (`MemoryStore`, `RedisStore`, …), or 'custom'. */
  readonly store: string;
  /** The receiver's `respond` setting. */
  readonly respond: RespondMode;
}

/**
 * How the receiver reports its steps to a tracing or metrics library: pass one as the receiver's
 * `instrumentation` option (`@sms-webhooks/otel` builds one for OpenTelemetry). Without it the receiver
 * makes no call and no allocation for it. Every method must return quickly and must not throw: they run
 * on the request's path.
 */
export interface Instrumentation {
  /**
   * `receiver.handle` was called; the observer follows that one delivery to its end. Undefined when there
   * is nothing to record for it (no SDK registered): the delivery then runs as without instrumentation.
   */
  startDelivery(headers: HeaderSource, receiver: InstrumentedReceiver): DeliveryObserver | undefined;
  /**
   * A request turned away before `receiver.handle` (an adapter's 405, 408 or 413 while reading, or its
   * 503 `overloaded` before reading), so refusals are counted wherever they happen.
   */
  refused?(code: string, status: number): void;
  /**
   * Runs a queued event's handlers (`call`) in a worker and returns what `call` returns: a tracer starts
   * the job's span there, linked to the delivery through `run.traceContext`. `call` takes what follows
   * each handler of the run, as `DeliveryObserver.runHandler` does for a delivery.
   */
  runQueued?<R>(run: QueuedRun, call: (handlers: HandlerObserver) => R): R;
}

/** Follows each handler of one run: a delivery's (`DeliveryObserver`) or a queued job's. */
export interface HandlerObserver {
  /**
   * Runs one handler and returns what `call` returns, unchanged. `call` runs synchronously inside, so a
   * tracer can make its span the active one and the handler's own spans nest under it.
   */
  runHandler<R>(handler: AnyWebhookHandler, call: () => R): R;
}

/**
 * One delivery, in the receiver's order: `verified` (absent when refused), then store operations and
 * handler runs, `answered` once with what the adapter sends, and `finished` once the handlers ran and
 * their outcome was recorded. With `respond: 'after-handlers'` `finished` comes before `answered`; with
 * 'immediately' after it (`answered(…, true)`); a delivery that runs no handler here (refused, ignored,
 * duplicate, in flight, dispatched) gets no `finished`.
 */
export interface DeliveryObserver extends HandlerObserver {
  /** The signature, timestamp and envelope checked out. `attempt` is the delivery-attempt header. */
  verified(event: AnyWebhookEvent, attempt: number | undefined): void;
  /** Runs one store operation (or the dispatch) and returns what `call` returns; a rejection passes through. */
  store<R>(operation: StoreOperation, call: () => Promise<R>): Promise<R>;
  /**
   * The delivery's trace context, asked for before a `dispatch` so the queue can carry it to the worker
   * (`DispatchedEvent.traceContext`); undefined when there is none (not sampled).
   */
  traceContext?(): TraceContext | undefined;
  /** The answer the adapter is about to write; `pending` when handlers still run after it. */
  answered(response: ReceiverResponse, pending: boolean): void;
  /** `receiver.handle` threw (a bug, not bad input): no answer follows. */
  threw(error: unknown): void;
  /** The handlers ran and their outcome was recorded; `error` holds every handler failure. */
  finished(error: WebhookHandlerError | undefined): void;
}

/** A store call, through a delivery's observer when there is one. */
export function observeStore<R>(
  obs: DeliveryObserver | undefined,
  operation: StoreOperation,
  call: () => Promise<R>,
): Promise<R> {
  return obs === undefined ? call() : obs.store(operation, call);
}
