// `@sms-webhooks/core/adapter` in the Web build (the workerd, edge-light, worker and browser conditions):
// what a Web adapter needs, without the Node entry, whose body reader needs Node's streams. The Node
// build's ./adapter (index.ts) re-exports all of it.

// Every adapter's start-up check that it was given a receiver.
export { checkReceiver } from './check-receiver.js';
// For dispatch functions (@sms-webhooks/bullmq): a time-out after which the hand-off may still land.
export { DispatchTimeoutError } from '../receiver/dispatch.js';
// The Web entry point: a Request in, a Response out (Workers, Deno, Bun, edge runtimes, Hono, Next.js).
export {
  BODY_USED_HINT,
  handleWebRequest,
  type WaitUntil,
  type WebRequestOptions,
} from './handle-web-request.js';
export { type Receiver, refuse } from '../receiver/receiver.js';
export {
  errorResponse,
  METHOD_NOT_ALLOWED,
  payloadTooLarge,
  RAW_BODY_UNAVAILABLE,
  type ReceiverResponse,
  rawBodyHint,
} from '../receiver/responses.js';
// For stores: bounds a call to their server, with the store's own error.
export { withTimeout } from '../receiver/with-timeout.js';
