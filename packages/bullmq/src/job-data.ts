import type { AnyWebhookEvent } from '@sms-webhooks/core';
import type { DispatchClaim, DispatchedEvent, QueuedOrder } from '@sms-webhooks/core/queue';

/** Default queue name for both `enqueueTo`'s Queue and `createWorker`. */
export const DEFAULT_QUEUE_NAME = 'sms-webhooks';

/** What one job holds: the verified event, its delivery context and the dedupe claim to complete. JSON only. */
export interface WebhookJobData {
  /** The verified event, as the receiver's handlers would get it. */
  event: AnyWebhookEvent;
  /** The service's delivery-attempt header (1…6), not the job's attempt. */
  attempt?: number;
  /** ISO time the receiver accepted the delivery. */
  receivedAt: string;
  /** The dedupe claim the receiver handed over with the event: the worker completes it, or releases it on the last failure. */
  claim?: DispatchClaim;
  /** The delivery's trace context (W3C traceparent) when the receiver is instrumented: the job's span links to it. */
  traceContext?: Readonly<Record<string, string>>;
  /** With the receiver's `order`: the event's object and version, which the worker orders the job by. */
  order?: QueuedOrder;
}

export function toJobData({ event, ctx, claim, traceContext, order }: DispatchedEvent): WebhookJobData {
  const data: WebhookJobData = { event, receivedAt: ctx.receivedAt.toISOString() };
  if (ctx.attempt !== undefined) data.attempt = ctx.attempt;
  if (claim !== undefined) data.claim = claim;
  if (traceContext !== undefined) data.traceContext = traceContext;
  if (order !== undefined) data.order = order;
  return data;
}
