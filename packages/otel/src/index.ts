export { ATTR, EVENT, MESSAGING_SYSTEM, METRIC, SPAN } from './attributes.js';
export { type AuditCounts, recordAudit } from './audit-metric.js';
export {
  INSTRUMENTATION_SCOPE,
  type OtelInstrumentationOptions,
  otelInstrumentation,
} from './otel-instrumentation.js';
export type { DeliveryOutcome } from './outcome.js';
