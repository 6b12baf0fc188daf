// For adapter authors: the Node entry every adapter calls, and the answers of the response table.

// For adapters with a shutdown hook: the default wait for handlers still running, and the option's check.
export { DEFAULT_DRAIN_TIMEOUT_MS, drainTimeoutOption } from './drain-timeout.js';
// For instrumentation libraries (@sms-webhooks/otel): the steps of a delivery the receiver reports.
export type {
  DeliveryObserver,
  HandlerObserver,
  Instrumentation,
  InstrumentedReceiver,
  QueuedRun,
  StoreOperation,
  TraceContext,
} from '../receiver/instrumentation.js';
// For queue workers and other owners of a dedupe claim: renews it every leaseMs / 3 while handlers run.
export { LeaseKeeper } from '../receiver/lease-keeper.js';
export {
  createNodeHandler,
  type NodeExchange,
  type NodeHandler,
  type NodeHandlerOptions,
  writeNodeResponse,
} from './node-handler.js';
// What the Web build's ./adapter has too: the Web entry point and the answers.
export * from './web.js';
