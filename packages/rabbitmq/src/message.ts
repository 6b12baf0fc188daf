import type { AnyWebhookEvent } from '@sms-webhooks/core';
import type { DispatchClaim, DispatchedEvent } from '@sms-webhooks/core/queue';

/** What one message holds: the verified event, its delivery context and the dedupe claim to complete. */
export interface WebhookMessageData {
  /** The verified event, as the receiver's handlers would get it. */
  event: AnyWebhookEvent;
  /** The service's delivery-attempt header (1…6), not the worker's run count. */
  attempt?: number;
  /** ISO time the receiver accepted the delivery. */
  receivedAt: string;
  /** The dedupe claim the receiver handed over with the event: the worker completes it, or releases it on the last failure. */
  claim?: DispatchClaim;
  /** The delivery's trace context (W3C traceparent) when the receiver is instrumented. */
  traceContext?: Readonly<Record<string, string>>;
}

/** Message headers the hand-off sets and reads. */
export const HEADERS = {
  /** Runs already made (failed) before this copy of the message; absent on the first. */
  runs: 'x-sms-runs',
  /** On a failed message: the last error's message. */
  error: 'x-sms-error',
  /** On a failed message: when it failed for good, ms since the epoch. */
  failedAt: 'x-sms-failed-at',
} as const;

export function toMessageData({ event, ctx, claim, traceContext }: DispatchedEvent): WebhookMessageData {
  const data: WebhookMessageData = { event, receivedAt: ctx.receivedAt.toISOString() };
  if (ctx.attempt !== undefined) data.attempt = ctx.attempt;
  if (claim !== undefined) data.claim = claim;
  if (traceContext !== undefined) data.traceContext = traceContext;
  return data;
}

/**
 * JSON as bytes. `JSON.stringify` escapes NUL as `\u0000` and a lone surrogate as `\udXXX` (Node 12+),
 * so the body is valid UTF-8 and the event's text comes back exactly as it went in.
 */
export function encode(data: WebhookMessageData): Buffer {
  return Buffer.from(JSON.stringify(data), 'utf8');
}

/** The message's data, or undefined when it is not one of ours (not JSON, or no event in it). */
export function decode(content: Buffer): WebhookMessageData | undefined {
  try {
    const data = JSON.parse(content.toString('utf8')) as WebhookMessageData | null;
    if (typeof data?.event?.id !== 'string' || typeof data.event.type !== 'string') return undefined;
    return data;
  } catch {
    return undefined;
  }
}
