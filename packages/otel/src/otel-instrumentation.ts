import { type MeterProvider, metrics, type TracerProvider, trace } from '@opentelemetry/api';
import type { Instrumentation } from '@sms-webhooks/core/instrumentation';
import { optionError } from '@sms-webhooks/internal';
import { OtelDeliveryObserver } from './delivery-observer.js';
import { instrumentsFor } from './instruments.js';
import { ObserverShared } from './observer-shared.js';
import { runQueued } from './queued-run.js';
import { recordRefusal } from './refusal-span.js';
import { sdkPresence } from './sdk-presence.js';

/** The instrumentation scope (tracer and meter name) of every span and metric: the package's name. */
export const INSTRUMENTATION_SCOPE = '@sms-webhooks/otel';

/** Where {@link otelInstrumentation} records, and how much. Every option has a default. */
export interface OtelInstrumentationOptions {
  /** Default the global one (`trace.getTracerProvider()`), which follows an SDK registered later too. */
  tracerProvider?: TracerProvider;
  /**
   * Default the global one at the time of this call: register the SDK's meter provider first (the API
   * has no stand-in that picks up a provider set later).
   */
  meterProvider?: MeterProvider;
  /**
   * `'delivery'` (default): one span per delivery, its steps (claim, each handler, complete) as events
   * on it, the handlers running with it active. `'full'`: also a child span per handler, in whose
   * context it runs.
   */
  detail?: 'delivery' | 'full';
  /**
   * Under `@opentelemetry/instrumentation-http` (the request's HTTP server span is in the context), the
   * delivery span leaves out what that span has (method, user agent, status) and no
   * `sms_webhooks.answer.duration` point is recorded: the HTTP instrumentation's
   * `http.server.request.duration` times the same answer. `true` records them anyway. Default `false`.
   */
  httpDuplicates?: boolean;
}

/**
 * The receiver's `instrumentation` option for OpenTelemetry: a span per delivery with children for
 * store operations and handlers, and the deliveries, durations, running handlers and store latency as
 * metrics. With no SDK set up the API's no-op tracer and meter make it record nothing.
 */
export function otelInstrumentation(options: OtelInstrumentationOptions = {}): Instrumentation {
  if (typeof options !== 'object' || options === null) {
    throw optionError(
      INSTRUMENTATION_SCOPE,
      'otelInstrumentation(options) takes an object: { tracerProvider?, meterProvider?, detail?, httpDuplicates? }.',
    );
  }
  const { tracerProvider, meterProvider, detail = 'delivery', httpDuplicates = false } = options;
  if (tracerProvider !== undefined && typeof tracerProvider.getTracer !== 'function') {
    throw optionError(INSTRUMENTATION_SCOPE, '`tracerProvider` must have getTracer() (a TracerProvider).');
  }
  if (meterProvider !== undefined && typeof meterProvider.getMeter !== 'function') {
    throw optionError(INSTRUMENTATION_SCOPE, '`meterProvider` must have getMeter() (a MeterProvider).');
  }
  if (detail !== 'delivery' && detail !== 'full') {
    throw optionError(
      INSTRUMENTATION_SCOPE,
      `\`detail\` is 'delivery' (the default) or 'full', not ${JSON.stringify(detail)}.`,
    );
  }
  if (typeof httpDuplicates !== 'boolean') {
    throw optionError(
      INSTRUMENTATION_SCOPE,
      `\`httpDuplicates\` is true or false (the default), not ${JSON.stringify(httpDuplicates)}.`,
    );
  }
  const tracer = (tracerProvider ?? trace.getTracerProvider()).getTracer(INSTRUMENTATION_SCOPE);
  const meter = (meterProvider ?? metrics.getMeterProvider()).getMeter(INSTRUMENTATION_SCOPE);
  const instruments = instrumentsFor(meter);
  const shared = new ObserverShared(tracer, instruments, { full: detail === 'full', httpDuplicates });
  const recordsAnything = sdkPresence(tracerProvider, meter);
  return {
    startDelivery: (headers, receiver) =>
      recordsAnything() ? new OtelDeliveryObserver(shared, headers, receiver) : undefined,
    runQueued: (run, call) => runQueued(shared, run, call),
    refused(code, status) {
      instruments.deliveries.other('refused', status, code, undefined).count++;
      recordRefusal(tracer, code, status, httpDuplicates);
    },
  };
}
