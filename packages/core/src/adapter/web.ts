// `@sms-webhooks/core/adapter` in the Web build (the workerd, edge-light, worker and browser conditions):
// what a Web adapter needs, without the Node entry, whose body reader needs Node's streams. The Node
// build's ./adapter (index.ts) re-exports all of it.

export type { AdapterReceiver, IncomingDelivery, Receiver } from '../receiver/receiver.js';
export type { ReceiverResponse } from '../receiver/responses.js';
export type { VerificationErrorCode } from '../verify/errors.js';
export type { HeaderSource } from '../verify/headers.js';
export type { RawBody } from '../verify/parse-event.js';
// Every adapter's start-up check that it was given a receiver.
export { checkReceiver } from './check-receiver.js';
// For adapters with a shutdown hook: the default wait for handlers still running, and the option's check.
export { DEFAULT_DRAIN_TIMEOUT_MS, drainTimeoutOption } from './drain-timeout.js';
// For an adapter that reads bodies its own way: the one refusal model and its answers.
export { type BodyRead, type EntryRefusal, refuseEntry } from './entry-refusal.js';
// The Web entry point: a Request in, a Response out (Workers, Deno, Bun, edge runtimes, Hono, Next.js).
export {
  BODY_USED_HINT,
  handleWebRequest,
  type WaitUntil,
  type WebRequestOptions,
} from './handle-web-request.js';
