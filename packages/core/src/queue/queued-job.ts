import type { DispatchClaim } from '../receiver/dispatch.js';
import type { HandlerContext } from '../receiver/handler-registry.js';
import type { AnyWebhookEvent } from '../verify/event-types.js';

/** What every queue package's job holds (JSON): the event, its delivery context, its claim and order slot. */
export interface QueuedJobData {
  event: AnyWebhookEvent;
  /** The service's delivery-attempt header (1…6), not the job's attempt. */
  attempt?: number;
  /** ISO time the receiver accepted the delivery. */
  receivedAt: string;
  claim?: DispatchClaim;
  /** The delivery's trace context (W3C traceparent) when the receiver is instrumented. */
  traceContext?: Readonly<Record<string, string>>;
  /** With the receiver's `order`: the event's object and version, as stored (checked before use). */
  order?: unknown;
}

export function toHandlerContext(data: QueuedJobData): HandlerContext {
  return { attempt: data.attempt, receivedAt: new Date(data.receivedAt) };
}
