import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import {
  ConsoleSpanExporter,
  SimpleSpanProcessor,
  type SpanExporter,
  TracerProvider,
} from '@opentelemetry/sdk-trace';

export interface Telemetry {
  /** A MetricReader that renders every metric in Prometheus's text format: mount it on GET /metrics. */
  prometheus: PrometheusExporter;
  shutdown(): Promise<void>;
}

/** The OpenTelemetry SDK for this process: spans to `spans` (the console by default), metrics for Prometheus. */
export function setUpTelemetry(spans: SpanExporter = new ConsoleSpanExporter()): Telemetry {
  const resource = resourceFromAttributes({ 'service.name': 'example-observability' });
  // Makes a span active across awaits, so the spans a handler starts nest under its handler span.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const tracerProvider = new TracerProvider({
    resource,
    spanProcessors: [new SimpleSpanProcessor({ exporter: spans })],
  });
  trace.setGlobalTracerProvider(tracerProvider);
  // Served on the app's own GET /metrics instead of a second port.
  const prometheus = new PrometheusExporter({ preventServerStart: true });
  const meterProvider = new MeterProvider({ resource, readers: [prometheus] });
  // Before otelInstrumentation() is called: the API has no stand-in that picks up a later meter provider.
  metrics.setGlobalMeterProvider(meterProvider);
  return {
    prometheus,
    async shutdown() {
      await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
    },
  };
}
