import { type Attributes, context, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import { ATTR, MESSAGING_SYSTEM, SPAN } from './attributes.js';
import { leavesToHttp } from './http-server-span.js';

/**
 * A request an entry turned away before `receiver.handle` (405, 408, 413, an unreadable or already
 * consumed body): a `sms-webhooks delivery` span of its own, as a delivery refused by the receiver has,
 * so a trace shows the refusal and not only the metric. It starts and ends at the refusal (the entry
 * reports no start time); the method and the event are unknown here, so only the answer is recorded.
 */
export function recordRefusal(tracer: Tracer, code: string, status: number, httpDuplicates: boolean): void {
  const parent = context.active();
  // Under the HTTP instrumentation's server span ours is an inner one, as for a delivery, and leaves
  // the status to that span.
  const kind = trace.getSpan(parent) === undefined ? SpanKind.SERVER : SpanKind.INTERNAL;
  const attributes: Attributes = {
    [ATTR.messagingSystem]: MESSAGING_SYSTEM,
    [ATTR.messagingOperationType]: 'process',
    [ATTR.outcome]: 'refused',
    [ATTR.errorType]: code,
  };
  if (!leavesToHttp(parent, httpDuplicates)) attributes[ATTR.httpStatus] = status;
  const span = tracer.startSpan(SPAN.delivery, { kind, attributes }, parent);
  // As for HTTP server spans: a 5xx is the server's error, a 4xx the client's and leaves it unset.
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: code });
  span.end();
}
