import { isSpanContextValid, type SpanContext, TraceFlags } from '@opentelemetry/api';
import type { TraceContext } from '@sms-webhooks/core/instrumentation';

// https://www.w3.org/TR/trace-context/#traceparent-header, version 00.
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** A span context as the W3C `traceparent` header, for a queue to carry in a job's data. */
export function toTraceContext(span: SpanContext): TraceContext {
  const flags = (span.traceFlags & TraceFlags.SAMPLED).toString(16).padStart(2, '0');
  return { traceparent: `00-${span.traceId}-${span.spanId}-${flags}` };
}

/** The span context a `traceparent` names, or undefined when absent or malformed. */
export function fromTraceContext(carrier: TraceContext | undefined): SpanContext | undefined {
  const match = TRACEPARENT.exec(carrier?.traceparent ?? '');
  if (match === null) return undefined;
  const context: SpanContext = {
    traceId: match[1]!,
    spanId: match[2]!,
    traceFlags: Number.parseInt(match[3]!, 16) & TraceFlags.SAMPLED,
    isRemote: true,
  };
  return isSpanContextValid(context) ? context : undefined;
}
