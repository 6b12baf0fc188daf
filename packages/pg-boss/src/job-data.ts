import type { AnyWebhookEvent } from '@sms-webhooks/core';
import type { DispatchClaim, DispatchedEvent, QueuedOrder } from '@sms-webhooks/core/queue';

/** Default pg-boss queue name for `enqueueTo`, `createWorker` and the failed-job functions. */
export const DEFAULT_QUEUE_NAME = 'sms-webhooks';

/**
 * What one job holds: the verified event, its delivery context and the dedupe claim to complete. JSON only.
 * The worker, its hooks and the failed-job functions always see `event`; in the job table an event that
 * holds text PostgreSQL's jsonb refuses is kept as `eventJson` instead (see below).
 */
export interface WebhookJobData {
  /** The verified event, as the receiver's handlers would get it. */
  event: AnyWebhookEvent;
  /**
   * The event as JSON text, stored instead of `event` when the event holds a NUL (`\u0000`) or half of a
   * surrogate pair: valid JSON that jsonb refuses, and that a reply's text can carry. As a jsonb string
   * it is only escapes, so it stores, and parses back to the very same event.
   */
  eventJson?: string;
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

/** A job as stored: `event`, or `eventJson` where jsonb would refuse the event. */
export type StoredJobData = Omit<WebhookJobData, 'event'> & { event?: AnyWebhookEvent };

// JSON.stringify writes NUL and a lone surrogate as these escapes (and a pair as itself), so their
// absence means jsonb takes the event. A backslash text that looks like one only costs the text form.
const JSONB_REFUSES = /\\u(?:0000|d[89a-f])/;

export function toJobData({ event, ctx, claim, traceContext, order }: DispatchedEvent): StoredJobData {
  const json = JSON.stringify(event);
  const data: StoredJobData = JSONB_REFUSES.test(json)
    ? { eventJson: json, receivedAt: ctx.receivedAt.toISOString() }
    : { event, receivedAt: ctx.receivedAt.toISOString() };
  if (ctx.attempt !== undefined) data.attempt = ctx.attempt;
  if (claim !== undefined) data.claim = claim;
  if (traceContext !== undefined) data.traceContext = traceContext;
  if (order !== undefined) data.order = order;
  return data;
}

/** The job's data with its `event` filled in from `eventJson` where it was stored as text. */
export function readJobData(data: StoredJobData): WebhookJobData {
  if (data.event === undefined && typeof data.eventJson === 'string') {
    data.event = JSON.parse(data.eventJson) as AnyWebhookEvent;
  }
  return data as WebhookJobData;
}
