import { type Attributes, type Context, context, type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import type { AnyWebhookHandler } from '@sms-webhooks/core';
import { isPromiseLike } from '@sms-webhooks/internal';
import { ATTR, EVENT, SPAN } from './attributes.js';
import { asException, errorMessage, errorType } from './error-type.js';
import type { ObserverShared } from './observer-shared.js';
import { seconds } from './seconds.js';

/** Where a handler runs: a delivery (its span) or a queued job in a worker (the job's span). */
export interface HandlerScope {
  readonly eventType: string;
  /** The span a failed handler's event goes on (by default), or its span's parent (`detail: 'full'`). */
  readonly span: Span;
  readonly recording: boolean;
  /** The context with `span` active; asked only when recording. */
  context(): Context;
}

/**
 * Runs one handler and records it: its duration and the running count always; when recording, the
 * handler runs with the scope's span active (or its own child span, with `detail: 'full'`), and a failure
 * is an event on the scope's span (or its own span's error).
 */
export function runHandler<R>(
  shared: ObserverShared,
  scope: HandlerScope,
  handler: AnyWebhookHandler,
  call: () => R,
): R {
  const { instruments, config, tracer } = shared;
  const name = handler.name || 'anonymous';
  const eventType = scope.eventType;
  const active = instruments.handlersActive.entry(eventType);
  active.count++;
  const start = performance.now();
  let span: Span | undefined;
  let ctx: Context | undefined;
  if (scope.recording) {
    if (config.full) {
      span = tracer.startSpan(
        SPAN.handlerPrefix + name,
        { attributes: { [ATTR.eventType]: eventType, [ATTR.handlerName]: name } },
        scope.context(),
      );
      ctx = trace.setSpan(scope.context(), span);
    } else ctx = scope.context();
  }
  let result: R;
  try {
    result = ctx === undefined ? call() : context.with(ctx, call);
  } catch (error) {
    handlerDone(shared, scope, name, active, start, span, true, error);
    throw error;
  }
  if (isPromiseLike(result)) {
    return result.then(
      (value) => {
        handlerDone(shared, scope, name, active, start, span, false, undefined);
        return value;
      },
      (error: unknown) => {
        handlerDone(shared, scope, name, active, start, span, true, error);
        throw error;
      },
    ) as R;
  }
  handlerDone(shared, scope, name, active, start, span, false, undefined);
  return result;
}

/** `handlerDuration`'s attributes for a handler that succeeded (a function, not a closure per call). */
const handlerSet = (eventType: string, name: string): Attributes => ({
  [ATTR.eventType]: eventType,
  [ATTR.handlerName]: name,
});

function handlerDone(
  shared: ObserverShared,
  scope: HandlerScope,
  name: string,
  active: { count: number },
  start: number,
  span: Span | undefined,
  failed: boolean,
  error: unknown,
): void {
  active.count--;
  const { instruments } = shared;
  const eventType = scope.eventType;
  const type = failed ? errorType(error) : undefined;
  const attributes =
    type === undefined
      ? instruments.handlerSets.get(eventType, name, handlerSet)
      : { [ATTR.eventType]: eventType, [ATTR.handlerName]: name, [ATTR.errorType]: type };
  instruments.handlerDuration.record(seconds(start), attributes);
  if (!scope.recording) return;
  if (span !== undefined) {
    if (type !== undefined) {
      span.setAttribute(ATTR.errorType, type);
      span.recordException(asException(error));
      span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
    }
    span.end();
    return;
  }
  // Without a span of its own (the default) a handler gets an event only when it failed.
  if (type !== undefined) {
    scope.span.addEvent(EVENT.handler, { [ATTR.handlerName]: name, [ATTR.errorType]: type });
    scope.span.recordException(asException(error));
  }
}
