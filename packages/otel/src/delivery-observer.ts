import {
  type Attributes,
  type Context,
  context,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type {
  AnyWebhookEvent,
  AnyWebhookHandler,
  HeaderSource,
  ReceiverResponse,
  WebhookHandlerError,
} from '@sms-webhooks/core';
import type {
  DeliveryObserver,
  InstrumentedReceiver,
  StoreOperation,
  TraceContext,
} from '@sms-webhooks/core/adapter';
import { ATTR, EVENT, MESSAGING_SYSTEM, SPAN } from './attributes.js';
import { errorMessage, errorType } from './error-type.js';
import type { Instruments } from './instruments.js';
import { type DeliveryOutcome, errorCodeOf, outcomeOf } from './outcome.js';
import { toTraceContext } from './trace-context.js';

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

function userAgent(headers: HeaderSource): string | undefined {
  const value =
    typeof (headers as { get?: unknown }).get === 'function'
      ? (headers as { get(name: string): string | null }).get('user-agent')
      : (headers as Record<string, unknown>)['user-agent'];
  return typeof value === 'string' ? value : undefined;
}

export function deliveryAttributes(
  outcome: DeliveryOutcome,
  status: number,
  code: string | undefined,
  eventType: string | undefined,
): Attributes {
  const attributes: Attributes = { [ATTR.outcome]: outcome, [ATTR.httpStatus]: status };
  if (code !== undefined) attributes[ATTR.errorType] = code;
  if (eventType !== undefined) attributes[ATTR.eventType] = eventType;
  return attributes;
}

function seconds(since: number): number {
  return (performance.now() - since) / 1000;
}

function storeResult(operation: StoreOperation, value: unknown): string | undefined {
  if (operation === 'claim') return String(value);
  if (operation === 'complete' || operation === 'release') return value === false ? 'not_held' : 'done';
  return undefined;
}

/**
 * Follows one delivery: its span (children for store operations and handlers) and its metric points.
 * When the span does not record (no SDK, or sampled out) no child span is made and no context is
 * switched; the metrics are still recorded, since they do not depend on sampling.
 */
export class OtelDeliveryObserver implements DeliveryObserver {
  readonly #tracer: Tracer;
  readonly #instruments: Instruments;
  readonly #receiver: InstrumentedReceiver;
  readonly #span: Span;
  /** The delivery span's context, only while it records. */
  readonly #context: Context | undefined;
  readonly #start = performance.now();
  #eventType: string | undefined;
  #verified = false;
  #answered = false;
  #pending = false;
  #finished = false;
  #ended = false;

  constructor(
    tracer: Tracer,
    instruments: Instruments,
    headers: HeaderSource,
    receiver: InstrumentedReceiver,
  ) {
    this.#tracer = tracer;
    this.#instruments = instruments;
    this.#receiver = receiver;
    const parent = context.active();
    // Under an HTTP server span (the HTTP instrumentation's) ours is an inner one; alone, it is the
    // server side of the webhook request.
    const kind = trace.getSpan(parent) === undefined ? SpanKind.SERVER : SpanKind.INTERNAL;
    this.#span = tracer.startSpan(
      SPAN.delivery,
      {
        kind,
        attributes: {
          [ATTR.httpMethod]: 'POST',
          [ATTR.messagingSystem]: MESSAGING_SYSTEM,
          [ATTR.messagingOperationType]: 'process',
          [ATTR.store]: receiver.store,
          [ATTR.respond]: receiver.respond,
        },
      },
      parent,
    );
    if (this.#span.isRecording()) {
      this.#context = trace.setSpan(parent, this.#span);
      const agent = userAgent(headers);
      if (agent !== undefined) this.#span.setAttribute(ATTR.userAgent, agent);
    }
  }

  verified(event: AnyWebhookEvent, attempt: number | undefined): void {
    this.#verified = true;
    this.#eventType = event.type;
    if (this.#context === undefined) return;
    this.#span.setAttribute(ATTR.messageId, event.id);
    this.#span.setAttribute(ATTR.eventType, event.type);
    if (attempt !== undefined) this.#span.setAttribute(ATTR.attempt, attempt);
  }

  traceContext(): TraceContext | undefined {
    return this.#context === undefined ? undefined : toTraceContext(this.#span.spanContext());
  }

  store<R>(operation: StoreOperation, call: () => R): R {
    const start = performance.now();
    // Store operations are events on the delivery span (their latency is the histogram's); only the
    // hand-off to a queue gets a span of its own, so a queue's instrumentation can nest under it.
    const ctx = operation === 'dispatch' ? this.#context : undefined;
    const span =
      ctx === undefined
        ? undefined
        : this.#tracer.startSpan(
            SPAN.storePrefix + operation,
            { attributes: { [ATTR.storeOperation]: operation, [ATTR.store]: this.#receiver.store } },
            ctx,
          );
    let result: R;
    try {
      result = span === undefined ? call() : context.with(trace.setSpan(ctx!, span), call);
    } catch (error) {
      this.#storeDone(operation, start, span, undefined, true, error);
      throw error;
    }
    if (isPromiseLike(result)) {
      return result.then(
        (value) => {
          this.#storeDone(operation, start, span, value, false, undefined);
          return value;
        },
        (error: unknown) => {
          this.#storeDone(operation, start, span, undefined, true, error);
          throw error;
        },
      ) as R;
    }
    this.#storeDone(operation, start, span, result, false, undefined);
    return result;
  }

  #storeDone(
    operation: StoreOperation,
    start: number,
    span: Span | undefined,
    value: unknown,
    failed: boolean,
    error: unknown,
  ): void {
    const seconds = (performance.now() - start) / 1000;
    const attributes: Attributes = {
      [ATTR.storeOperation]: operation,
      [ATTR.store]: this.#receiver.store,
    };
    if (failed) attributes[ATTR.errorType] = errorType(error);
    else {
      const result = storeResult(operation, value);
      if (result !== undefined) attributes[ATTR.storeResult] = result;
    }
    this.#instruments.storeDuration.record(seconds, attributes);
    if (this.#context === undefined) return;
    if (span === undefined) {
      const event: Attributes = { [ATTR.storeDuration]: seconds };
      if (failed) event[ATTR.errorType] = attributes[ATTR.errorType];
      else if (attributes[ATTR.storeResult] !== undefined)
        event[ATTR.storeResult] = attributes[ATTR.storeResult];
      this.#span.addEvent(EVENT.storePrefix + operation, event);
      if (failed) this.#span.recordException(error instanceof Error ? error : errorMessage(error));
      return;
    }
    span.setAttributes(attributes);
    if (failed) {
      span.recordException(error instanceof Error ? error : errorMessage(error));
      span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
    }
    span.end();
  }

  runHandler<R>(handler: AnyWebhookHandler, call: () => R): R {
    const name = handler.name || 'anonymous';
    const eventType = this.#eventType ?? 'unknown';
    const active = this.#instruments.handlersActive.entry(eventType);
    active.count++;
    const start = performance.now();
    const ctx = this.#context;
    const span =
      ctx === undefined
        ? undefined
        : this.#tracer.startSpan(
            SPAN.handlerPrefix + name,
            { attributes: { [ATTR.eventType]: eventType, [ATTR.handlerName]: name } },
            ctx,
          );
    let result: R;
    try {
      result = span === undefined ? call() : context.with(trace.setSpan(ctx!, span), call);
    } catch (error) {
      this.#handlerDone(name, active, start, span, true, error);
      throw error;
    }
    if (isPromiseLike(result)) {
      return result.then(
        (value) => {
          this.#handlerDone(name, active, start, span, false, undefined);
          return value;
        },
        (error: unknown) => {
          this.#handlerDone(name, active, start, span, true, error);
          throw error;
        },
      ) as R;
    }
    this.#handlerDone(name, active, start, span, false, undefined);
    return result;
  }

  #handlerDone(
    name: string,
    active: { count: number },
    start: number,
    span: Span | undefined,
    failed: boolean,
    error: unknown,
  ): void {
    active.count--;
    const attributes: Attributes = {
      [ATTR.eventType]: this.#eventType ?? 'unknown',
      [ATTR.handlerName]: name,
    };
    if (failed) attributes[ATTR.errorType] = errorType(error);
    this.#instruments.handlerDuration.record(seconds(start), attributes);
    if (span === undefined) return;
    if (failed) {
      span.setAttribute(ATTR.errorType, attributes[ATTR.errorType] as string);
      span.recordException(error instanceof Error ? error : errorMessage(error));
      span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
    }
    span.end();
  }

  answered(response: ReceiverResponse, pending: boolean): void {
    const outcome = outcomeOf(response, this.#verified);
    const code = errorCodeOf(response);
    const attributes = deliveryAttributes(outcome, response.status, code, this.#eventType);
    this.#instruments.deliveries.add(
      `${outcome} ${response.status} ${code} ${this.#eventType}`,
      () => attributes,
    );
    this.#instruments.answerDuration.record(seconds(this.#start), attributes);
    this.#answered = true;
    this.#pending = pending;
    if (this.#context !== undefined) {
      this.#span.setAttributes(attributes);
      // With handlers still to run, the span ends later: the event marks when the answer went out.
      if (pending) this.#span.addEvent(EVENT.answered);
      // As for HTTP server spans: a 5xx is the server's error, a 4xx the client's and leaves it unset.
      if (response.status >= 500) this.#span.setStatus({ code: SpanStatusCode.ERROR, message: code });
    }
    if (!this.#pending || this.#finished) this.#end();
  }

  threw(error: unknown): void {
    const type = errorType(error);
    this.#instruments.deliveries.add(`failed threw ${type}`, () => ({
      [ATTR.outcome]: 'failed',
      [ATTR.errorType]: type,
    }));
    if (this.#context !== undefined) {
      this.#span.setAttribute(ATTR.outcome, 'failed');
      this.#span.setAttribute(ATTR.errorType, type);
      this.#span.recordException(error instanceof Error ? error : errorMessage(error));
      this.#span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
    }
    this.#end();
  }

  finished(error: WebhookHandlerError | undefined): void {
    this.#finished = true;
    if (error !== undefined && this.#context !== undefined) {
      this.#span.setAttribute(ATTR.handlersFailed, error.errors.length);
      this.#span.setAttribute(ATTR.errorType, error.code);
      this.#span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
    }
    if (this.#answered) this.#end();
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#span.end();
  }
}
