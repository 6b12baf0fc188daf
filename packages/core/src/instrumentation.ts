// `@sms-webhooks/core/instrumentation`: for tracing and metrics libraries (`@sms-webhooks/otel`): the steps
// of a delivery the receiver reports. Types only.
export type {
  DeliveryObserver,
  HandlerObserver,
  Instrumentation,
  InstrumentedReceiver,
  QueuedRun,
  StoreOperation,
  TraceContext,
} from './receiver/instrumentation.js';
export type { Refusal, RefusalHandler } from './receiver/refusals.js';
export type { HeaderSource } from './verify/headers.js';
