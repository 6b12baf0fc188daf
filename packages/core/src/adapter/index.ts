// For adapter authors: the Node entry every adapter calls, and the answers of the response table.

// The Web entry point: a Request in, a Response out (Workers, Deno, Bun, edge runtimes, Hono, Next.js).
export {
  BODY_USED_HINT,
  handleWebRequest,
  type WaitUntil,
  type WebRequestOptions,
} from '../handle-web-request.js';
// For instrumentation libraries (@sms-webhooks/otel): the steps of a delivery the receiver reports.
export type {
  DeliveryObserver,
  Instrumentation,
  InstrumentedReceiver,
  QueuedRun,
  StoreOperation,
  TraceContext,
} from '../instrumentation.js';
// For queue workers and other owners of a dedupe claim: renews it every leaseMs / 3 while handlers run.
export { LeaseKeeper } from '../lease-keeper.js';
export {
  createNodeHandler,
  type NodeExchange,
  type NodeHandler,
  type NodeHandlerOptions,
  writeNodeResponse,
} from '../node-handler.js';
export { type Receiver, refuse } from '../receiver.js';
export {
  errorResponse,
  METHOD_NOT_ALLOWED,
  payloadTooLarge,
  RAW_BODY_UNAVAILABLE,
  type ReceiverResponse,
  rawBodyHint,
} from '../responses.js';
// For stores: bounds a call to their server, with the store's own error.
export { withTimeout } from '../with-timeout.js';
