import type { AnyWebhookEvent } from './event-types.js';
import type { HandlerContext } from './handler-registry.js';
import type { TraceContext } from './instrumentation.js';

/** The dedupe claim a dispatched event holds; whoever runs the handlers completes or releases it. */
export interface DispatchClaim {
  key: string;
  token: string;
}

export interface DispatchedEvent {
  event: AnyWebhookEvent;
  ctx: HandlerContext;
  /** Absent when the store was down and `onStoreError: 'process'` let the event through without dedupe. */
  claim?: DispatchClaim;
  /** The delivery's trace context, when the receiver's instrumentation gives one: keep it with the event. */
  traceContext?: TraceContext;
}

/**
 * Replaces running handlers in this process (`respond` no longer applies): hands a verified, claimed
 * event to somewhere durable, such as a queue. The receiver answers 200 once the promise resolves; when
 * it rejects, it releases the claim and answers 503 store_unavailable so the service retries. The claim
 * is left held on success: the consumer completes it (`store.complete(key, token, retainMs)`).
 */
export type Dispatch = (dispatched: DispatchedEvent) => Promise<unknown>;
