import {
  type Attributes,
  type Context,
  context,
  type Link,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
} from '@opentelemetry/api';
import type { WebhookHandlerError } from '@sms-webhooks/core';
import type { HandlerObserver, QueuedRun } from '@sms-webhooks/core/instrumentation';
import { isPromiseLike } from '@sms-webhooks/internal';
import { ATTR, MESSAGING_SYSTEM, SPAN } from './attributes.js';
import { asException, errorMessage, errorType } from './error-type.js';
import { type HandlerScope, runHandler } from './handler-run.js';
import type { ObserverShared } from './observer-shared.js';
import { fromTraceContext } from './trace-context.js';

function isHandlerError(error: unknown): error is WebhookHandlerError {
  return error instanceof AggregateError && (error as { code?: unknown }).code === 'handler_failed';
}

/**
 * The context a job's span starts in. A queue's own instrumentation runs the job inside its consumer
 * span, still open: ours nests under it. But a worker's loop keeps the context it was created in for
 * good, so the span active where the app created the worker (its start-up, say) is active for every
 * job, long after it ended: under it every job of the app's life would join one trace. A span that has
 * ended (sampled, yet no longer recording) is left out, and the job starts a trace of its own, linked
 * to its delivery. A span sampled out is kept, so the job follows its decision.
 */
function jobParent(active: Context): Context {
  const span = trace.getSpan(active);
  if (span === undefined || span.isRecording()) return active;
  const sampled = (span.spanContext().traceFlags & TraceFlags.SAMPLED) !== 0;
  return sampled ? trace.deleteSpan(active) : active;
}

/**
 * A queued event's run in a worker: a CONSUMER span `sms-webhooks job`, linked to the delivery that
 * queued it (a link, not a parent: the delivery's trace has long ended when a retried job runs), with
 * the handlers running inside it so their own spans nest under it. Each handler is recorded as in a
 * delivery: its duration, the running count, and with `detail: 'full'` a span of its own.
 */
export function runQueued<R>(
  shared: ObserverShared,
  run: QueuedRun,
  call: (handlers: HandlerObserver) => R,
): R {
  const delivery = fromTraceContext(run.traceContext);
  const links: Link[] = delivery === undefined ? [] : [{ context: delivery }];
  const attributes: Attributes = {
    [ATTR.messagingSystem]: MESSAGING_SYSTEM,
    [ATTR.messagingOperationType]: 'process',
    [ATTR.messageId]: run.event.id,
    [ATTR.eventType]: run.event.type,
  };
  const parent = jobParent(context.active());
  const span = shared.tracer.startSpan(SPAN.job, { kind: SpanKind.CONSUMER, links, attributes }, parent);
  const jobContext: Context = trace.setSpan(parent, span);
  const scope: HandlerScope = {
    eventType: run.event.type,
    span,
    recording: span.isRecording(),
    context: () => jobContext,
  };
  const handlers: HandlerObserver = {
    runHandler: (handler, handlerCall) => runHandler(shared, scope, handler, handlerCall),
  };
  const failed = (error: unknown) => {
    span.setAttribute(ATTR.errorType, errorType(error));
    // Each failed handler was recorded as it failed (an event, or its own span): the run's error only
    // says how many, as a delivery's span does.
    // (By its code, not instanceof: the worker may load core's other build.)
    if (isHandlerError(error)) span.setAttribute(ATTR.handlersFailed, error.errors.length);
    else span.recordException(asException(error));
    span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
    span.end();
  };
  let result: R;
  try {
    result = context.with(jobContext, () => call(handlers));
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
