import { type MeterProvider, metrics, type TracerProvider, trace } from '@opentelemetry/api';
import type { Instrumentation } from '@sms-webhooks/core/adapter';
import { deliveryAttributes, OtelDeliveryObserver } from './delivery-observer.js';
import { createInstruments } from './instruments.js';
import { runQueued } from './queued-run.js';

export const INSTRUMENTATION_SCOPE = '@sms-webhooks/otel';

export interface OtelInstrumentationOptions {
  /** Default the global one (`trace.getTracerProvider()`), which follows an SDK registered later too. */
  tracerProvider?: TracerProvider;
  /**
   * Default the global one at the time of this call: register the SDK's meter provider first (the API
   * has no stand-in that picks up a provider set later).
   */
  meterProvider?: MeterProvider;
}

/**
 * The receiver's `instrumentation` option for OpenTelemetry: a span per delivery with children for
 * store operations and handlers, and the deliveries, durations, running handlers and store latency as
 * metrics. With no SDK set up the API's no-op tracer and meter make it record nothing.
 */
export function otelInstrumentation(options: OtelInstrumentationOptions = {}): Instrumentation {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(
      '@sms-webhooks/otel: otelInstrumentation(options) takes an object: { tracerProvider?, meterProvider? }.',
    );
  }
  const { tracerProvider, meterProvider } = options;
  if (tracerProvider !== undefined && typeof tracerProvider.getTracer !== 'function') {
    throw new TypeError('@sms-webhooks/otel: `tracerProvider` must have getTracer() (a TracerProvider).');
  }
  if (meterProvider !== undefined && typeof meterProvider.getMeter !== 'function') {
    throw new TypeError('@sms-webhooks/otel: `meterProvider` must have getMeter() (a MeterProvider).');
  }
  const tracer = (tracerProvider ?? trace.getTracerProvider()).getTracer(INSTRUMENTATION_SCOPE);
  const instruments = createInstruments(
    (meterProvider ?? metrics.getMeterProvider()).getMeter(INSTRUMENTATION_SCOPE),
  );
  return {
    startDelivery: (headers, receiver) => new OtelDeliveryObserver(tracer, instruments, headers, receiver),
    runQueued: (run, call) => runQueued(tracer, run, call),
    refused(code, status) {
      instruments.deliveries.add(`refused ${status} ${code} undefined`, () =>
        deliveryAttributes('refused', status, code, undefined),
      );
    },
  };
}
