export { ATTR, EVENT, MESSAGING_SYSTEM, METRIC, SPAN } from './attributes.js';
export {
  INSTRUMENTATION_SCOPE,
  type OtelInstrumentationOptions,
  otelInstrumentation,
} from './otel-instrumentation.js';
export type { DeliveryOutcome } from './outcome.js';
