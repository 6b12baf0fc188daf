import {
  type Attributes,
  context,
  type Link,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { QueuedRun } from '@sms-webhooks/core/adapter';
import { ATTR, MESSAGING_SYSTEM, SPAN } from './attributes.js';
import { errorMessage, errorType } from './error-type.js';
import { fromTraceContext } from './trace-context.js';

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

/**
 * A queued event's run in a worker: a CONSUMER span `sms-webhooks job`, linked to the delivery that
 * queued it (a link, not a parent: the delivery's trace has long ended when a retried job runs), with
 * the handlers running inside it so their own spans nest under it.
 */
export function runQueued<R>(tracer: Tracer, run: QueuedRun, call: () => R): R {
  const delivery = fromTraceContext(run.traceContext);
  const links: Link[] = delivery === undefined ? [] : [{ context: delivery }];
  const attributes: Attributes = {
    [ATTR.messagingSystem]: MESSAGING_SYSTEM,
    [ATTR.messagingOperationType]: 'process',
    [ATTR.messageId]: run.event.id,
    [ATTR.eventType]: run.event.type,
  };
  const span = tracer.startSpan(SPAN.job, { kind: SpanKind.CONSUMER, links, attributes }, context.active());
  const failed = (error: unknown) => {
    span.setAttribute(ATTR.errorType, errorType(error));
    span.recordException(error instanceof Error ? error : errorMessage(error));
    span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
    span.end();
  };
  let result: R;
  try {
    result = context.with(trace.setSpan(context.active(), span), call);
  } catch (error) {
    failed(error);
    throw error;
  }
  if (!isPromiseLike(result)) {
    span.end();
    return result;
  }
  return result.then(
    (value) => {
      span.end();
      return value;
    },
    (error: unknown) => {
      failed(error);
      throw error;
    },
  ) as R;
}
