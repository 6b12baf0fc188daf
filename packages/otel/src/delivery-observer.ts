import { type Attributes, type Context, context, type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import type {
  AnyWebhookEvent,
  AnyWebhookHandler,
  ReceiverResponse,
  WebhookHandlerError,
} from '@sms-webhooks/core';
import type {
  DeliveryObserver,
  HeaderSource,
  InstrumentedReceiver,
  StoreOperation,
  TraceContext,
} from '@sms-webhooks/core/instrumentation';
import { ATTR, EVENT, SPAN } from './attributes.js';
import { asException, errorMessage, errorType } from './error-type.js';
import { type HandlerScope, runHandler } from './handler-run.js';
import { leavesToHttp } from './http-server-span.js';
import type { DeliveryEntry } from './instruments.js';
import type { ObserverShared, SpanStart } from './observer-shared.js';
import { acceptedOutcome, errorCodeOf, outcomeOf } from './outcome.js';
import { seconds } from './seconds.js';
import { toTraceContext } from './trace-context.js';

function userAgent(headers: HeaderSource): string | undefined {
  const value =
    typeof (headers as { get?: unknown }).get === 'function'
      ? (headers as { get(name: string): string | null }).get('user-agent')
      : (headers as Record<string, unknown>)['user-agent'];
  return typeof value === 'string' ? value : undefined;
}

function storeResult(operation: StoreOperation, value: unknown): string | undefined {
  if (operation === 'claim' || operation === 'claimWithOrder') return String(value);
  if (operation === 'complete' || operation === 'release' || operation === 'completeWithOrder')
    return value === false ? 'not_held' : 'done';
  return undefined;
}

const STORE_EVENT: Record<StoreOperation, string> = {
  claim: `${EVENT.storePrefix}claim`,
  complete: `${EVENT.storePrefix}complete`,
  release: `${EVENT.storePrefix}release`,
  dispatch: `${EVENT.storePrefix}dispatch`,
  claimOrder: `${EVENT.storePrefix}claim_order`,
  claimWithOrder: `${EVENT.storePrefix}claim_with_order`,
  completeWithOrder: `${EVENT.storePrefix}complete_with_order`,
  completeOrder: `${EVENT.storePrefix}complete_order`,
  releaseOrder: `${EVENT.storePrefix}release_order`,
};

function setAll(span: Span, attributes: SpanStart['after']): void {
  for (let i = 0; i < attributes.length; i++) span.setAttribute(attributes[i]![0], attributes[i]![1]);
}

/**
 * Follows one delivery: its span and its metric points. By default one span, with events only for what
 * went wrong; with `detail: 'full'` an event for each step and a child span per handler as well.
 * When the span does not record (no SDK, or sampled out) no event or child span is made and no context
 * is switched; the metrics are still recorded, since they do not depend on sampling.
 */
export class OtelDeliveryObserver implements DeliveryObserver, HandlerScope {
  readonly #shared: ObserverShared;
  readonly #receiver: InstrumentedReceiver;
  readonly span: Span;
  readonly recording: boolean;
  /**
   * Under the HTTP instrumentation's server span, which has the method, user agent and status, and whose
   * `http.server.request.duration` times the answer: ours leaves them out (unless `httpDuplicates`).
   */
  readonly #deferToHttp: boolean;
  readonly #parent: Context;
  /** The context with the delivery span active, made when first needed (a handler, the dispatch). */
  #context: Context | undefined;
  /** When the delivery began, for the answer's duration; 0 when the HTTP instrumentation times it. */
  readonly #start: number;
  #eventType: string | undefined;
  #verified = false;
  #answered = false;
  #pending = false;
  #finished = false;
  #ended = false;

  constructor(shared: ObserverShared, headers: HeaderSource, receiver: InstrumentedReceiver) {
    this.#shared = shared;
    this.#receiver = receiver;
    const perReceiver = shared.forReceiver(receiver);
    const parent = context.active();
    this.#parent = parent;
    // Under a span (the HTTP instrumentation's, a framework's, the app's) ours is an inner one; alone,
    // it is the server side of the webhook request.
    const deferToHttp = leavesToHttp(parent, shared.config.httpDuplicates);
    this.#deferToHttp = deferToHttp;
    this.#start = deferToHttp ? 0 : performance.now();
    const spanStart = deferToHttp
      ? perReceiver.underHttp
      : trace.getSpan(parent) === undefined
        ? perReceiver.server
        : perReceiver.internal;
    this.span = shared.tracer.startSpan(SPAN.delivery, spanStart.options, parent);
    this.recording = this.span.isRecording();
    if (this.recording && spanStart.after.length > 0) setAll(this.span, spanStart.after);
    if (this.recording && !deferToHttp) {
      const agent = userAgent(headers);
      if (agent !== undefined) this.span.setAttribute(ATTR.userAgent, agent);
    }
  }

  /** The context with the delivery span active. */
  context(): Context {
    this.#context ??= trace.setSpan(this.#parent, this.span);
    return this.#context;
  }

  get eventType(): string {
    return this.#eventType ?? 'unknown';
  }

  verified(event: AnyWebhookEvent, attempt: number | undefined): void {
    this.#verified = true;
    this.#eventType = event.type;
    if (!this.recording) return;
    this.span.setAttribute(ATTR.messageId, event.id);
    this.span.setAttribute(ATTR.eventType, event.type);
    if (attempt !== undefined) this.span.setAttribute(ATTR.attempt, attempt);
  }

  traceContext(): TraceContext | undefined {
    return this.recording ? toTraceContext(this.span.spanContext()) : undefined;
  }

  async store<R>(operation: StoreOperation, call: () => Promise<R>): Promise<R> {
    const start = performance.now();
    // Store operations are events on the delivery span; only the hand-off to a queue gets a span of its
    // own, so a queue's instrumentation can nest under it.
    const span =
      operation === 'dispatch' && this.recording
        ? this.#shared.tracer.startSpan(
            SPAN.storePrefix + operation,
            { attributes: { [ATTR.storeOperation]: operation, [ATTR.store]: this.#receiver.store } },
            this.context(),
          )
        : undefined;
    try {
      const value = await (span === undefined
        ? call()
        : context.with(trace.setSpan(this.context(), span), call));
      this.#storeDone(operation, start, span, value, false, undefined);
      return value;
    } catch (error) {
      this.#storeDone(operation, start, span, undefined, true, error);
      throw error;
    }
  }

  #storeDone(
    operation: StoreOperation,
    start: number,
    span: Span | undefined,
    value: unknown,
    failed: boolean,
    error: unknown,
  ): void {
    const type = failed ? errorType(error) : undefined;
    const result = failed ? undefined : storeResult(operation, value);
    const duration = seconds(start);
    const store = this.#receiver.store;
    const set = this.#shared.instruments.storeSets.get(
      `${store} ${operation}`,
      type === undefined ? `ok ${result}` : `error ${type}`,
      () => {
        const fresh: Attributes = { [ATTR.storeOperation]: operation, [ATTR.store]: store };
        if (type !== undefined) fresh[ATTR.errorType] = type;
        else if (result !== undefined) fresh[ATTR.storeResult] = result;
        return fresh;
      },
    );
    this.#shared.instruments.storeDuration.record(duration, set);
    if (!this.recording) return;
    if (span !== undefined) {
      span.setAttribute(ATTR.storeOperation, operation);
      span.setAttribute(ATTR.store, this.#receiver.store);
      if (type !== undefined) {
        span.setAttribute(ATTR.errorType, type);
        span.recordException(asException(error));
        span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
      } else if (result !== undefined) span.setAttribute(ATTR.storeResult, result);
      span.end();
      return;
    }
    // By default only what goes wrong gets an event: a store that threw, a claim no longer held.
    if (!this.#shared.config.full && type === undefined && result !== 'not_held') return;
    const attributes: Attributes = { [ATTR.storeDuration]: duration };
    if (type !== undefined) attributes[ATTR.errorType] = type;
    else if (result !== undefined) attributes[ATTR.storeResult] = result;
    this.span.addEvent(STORE_EVENT[operation], attributes);
    if (type !== undefined) this.span.recordException(asException(error));
  }

  runHandler<R>(handler: AnyWebhookHandler, call: () => R): R {
    return runHandler(this.#shared, this, handler, call);
  }

  answered(response: ReceiverResponse, pending: boolean): void {
    const { deliveries, answerDuration } = this.#shared.instruments;
    const status = response.status;
    const eventType = this.#eventType;
    let entry: DeliveryEntry;
    if (status < 300 && eventType !== undefined) {
      entry = deliveries.accepted(acceptedOutcome(response), eventType);
    } else {
      const outcome = outcomeOf(response, this.#verified);
      entry = deliveries.other(outcome, status, errorCodeOf(response), eventType);
    }
    entry.count++;
    if (!this.#deferToHttp) answerDuration.record(seconds(this.#start), entry.durationAttributes);
    this.#answered = true;
    this.#pending = pending;
    if (this.recording) {
      // Event type and id were set when verified.
      this.span.setAttribute(ATTR.outcome, entry.attributes[ATTR.outcome]!);
      if (!this.#deferToHttp) this.span.setAttribute(ATTR.httpStatus, status);
      const code = entry.attributes[ATTR.errorType];
      if (code !== undefined) this.span.setAttribute(ATTR.errorType, code);
      // With handlers still to run, the span ends later: the event marks when the answer went out.
      if (pending && this.#shared.config.full) this.span.addEvent(EVENT.answered);
      // As for HTTP server spans: a 5xx is the server's error, a 4xx the client's and leaves it unset.
      if (status >= 500) {
        this.span.setStatus({ code: SpanStatusCode.ERROR, message: code as string | undefined });
      }
    }
    if (!this.#pending || this.#finished) this.#end();
  }

  threw(error: unknown): void {
    const type = errorType(error);
    this.#shared.instruments.deliveries.other('failed', undefined, type, undefined).count++;
    if (this.recording) {
      this.span.setAttribute(ATTR.outcome, 'failed');
      this.span.setAttribute(ATTR.errorType, type);
      this.span.recordException(asException(error));
      this.span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
    }
    this.#end();
  }

  finished(error: WebhookHandlerError | undefined): void {
    this.#finished = true;
    if (error !== undefined && this.recording) {
      this.span.setAttribute(ATTR.handlersFailed, error.errors.length);
      this.span.setAttribute(ATTR.errorType, error.code);
      this.span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
    }
    if (this.#answered) this.#end();
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.span.end();
  }
}
