import {
  createNoopMeter,
  type Meter,
  ProxyTracerProvider,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';

// The API's own stand-ins, from this copy of @opentelemetry/api: a proxy with no SDK behind it hands out
// this no-op provider, and a meter provider that is not set hands out the no-op meter.
const NOOP_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate();
const NoopMeter = createNoopMeter().constructor;

/**
 * Whether a delivery can record anything at all: false when the global tracer provider still has no SDK
 * behind it and the meter is the API's no-op. Read on every delivery, so an SDK registered after
 * `otelInstrumentation()` is picked up by the next one; the meter is fixed when the instrumentation is
 * made (the API has no stand-in meter that follows a provider set later). Then the receiver runs exactly
 * as without instrumentation, instead of building spans and points that go nowhere.
 */
export function sdkPresence(explicitTracerProvider: TracerProvider | undefined, meter: Meter): () => boolean {
  if (explicitTracerProvider !== undefined || !(meter instanceof NoopMeter)) return () => true;
  return () => {
    const provider = trace.getTracerProvider();
    return !(provider instanceof ProxyTracerProvider) || provider.getDelegate() !== NOOP_TRACER_PROVIDER;
  };
}
