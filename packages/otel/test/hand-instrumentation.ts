/**
 * Issue 28's hand-written equivalent for the otel bench: what `otelInstrumentation()` records by
 * default, written the way an application would on the receiver's `instrumentation` hook, with none of
 * the package's reuse (no cached attribute sets, no observable counters, no sampling checks): one span per
 * delivery with the same attributes, the handlers run with it active, the answer and handler duration
 * histograms, and a deliveries counter. Only the happy path (and a plain 4xx/5xx) is covered.
 */
import {
  type Attributes,
  context,
  type MeterProvider,
  type Span,
  SpanKind,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import type { Instrumentation } from '@sms-webhooks/core/instrumentation';

export function handInstrumentation(
  tracerProvider: TracerProvider,
  meterProvider: MeterProvider,
): Instrumentation {
  const tracer = tracerProvider.getTracer('hand');
  const meter = meterProvider.getMeter('hand');
  const deliveries = meter.createCounter('sms_webhooks.deliveries');
  const answerDuration = meter.createHistogram('sms_webhooks.answer.duration', { unit: 's' });
  const handlerDuration = meter.createHistogram('sms_webhooks.handler.duration', { unit: 's' });
  return {
    startDelivery(headers, receiver) {
      const start = performance.now();
      const parent = context.active();
      const span: Span = tracer.startSpan(
        'sms-webhooks delivery',
        {
          kind: trace.getSpan(parent) === undefined ? SpanKind.SERVER : SpanKind.INTERNAL,
          attributes: {
            'http.request.method': 'POST',
            'messaging.system': 'sms_webhooks',
            'messaging.operation.type': 'process',
            'sms_webhooks.store': receiver.store,
            'sms_webhooks.respond': receiver.respond,
            'user_agent.original': (headers as Record<string, string>)['user-agent'],
          },
        },
        parent,
      );
      const active = trace.setSpan(parent, span);
      let eventType = 'unknown';
      let pending = false;
      let answered = false;
      return {
        verified(event, attempt) {
          eventType = event.type;
          span.setAttribute('messaging.message.id', event.id);
          span.setAttribute('sms_webhooks.event.type', event.type);
          if (attempt !== undefined) span.setAttribute('sms_webhooks.delivery.attempt', attempt);
        },
        store: (_operation, call) => call(),
        runHandler(handler, call) {
          const began = performance.now();
          const result = context.with(active, call);
          const record = () =>
            handlerDuration.record((performance.now() - began) / 1000, {
              'sms_webhooks.handler.name': handler.name || 'anonymous',
              'sms_webhooks.event.type': eventType,
            });
          if (result instanceof Promise) return result.finally(record) as typeof result;
          record();
          return result;
        },
        answered(response, stillPending) {
          const outcome = response.status < 300 ? 'received' : 'refused';
          const attributes: Attributes = {
            'sms_webhooks.outcome': outcome,
            'sms_webhooks.event.type': eventType,
          };
          deliveries.add(1, { ...attributes, 'http.response.status_code': response.status });
          answerDuration.record((performance.now() - start) / 1000, attributes);
          span.setAttribute('sms_webhooks.outcome', outcome);
          span.setAttribute('http.response.status_code', response.status);
          answered = true;
          pending = stillPending;
          if (!pending) span.end();
        },
        threw() {
          span.end();
        },
        finished() {
          if (answered && pending) span.end();
          pending = false;
        },
      };
    },
  };
}
