// `@sms-webhooks/core/adapter` in the Web build (the workerd, edge-light, worker and browser conditions):
// what a Web adapter needs, without the Node entry, whose body reader needs Node's streams.

export {
  BODY_USED_HINT,
  handleWebRequest,
  type WaitUntil,
  type WebRequestOptions,
} from '../handle-web-request.js';
export { type Receiver, refuse } from '../receiver.js';
export {
  errorResponse,
  METHOD_NOT_ALLOWED,
  payloadTooLarge,
  RAW_BODY_UNAVAILABLE,
  type ReceiverResponse,
  rawBodyHint,
} from '../responses.js';
export { withTimeout } from '../with-timeout.js';
