// `@sms-webhooks/core/adapter` in the Web build (the workerd, edge-light, worker and browser conditions):
// what a Web adapter needs, without the Node entry, whose body reader needs Node's streams. The Node
// build's ./adapter (index.ts) re-exports all of it.

// The types around `on(type, schema, handler)` and `onInvalid` beyond StandardSchemaV1 (on the main entry).
export type { CheckedWebhookHandler } from '../receiver/handler-registry.js';
export type { AdapterReceiver, IncomingDelivery, Receiver } from '../receiver/receiver.js';
export type { ReceiverResponse } from '../receiver/responses.js';
export type { InvalidEvent, InvalidEventHandler } from '../receiver/schema-check.js';
export type { VerificationErrorCode } from '../verify/errors.js';
export type { CheckedWebhookEvent } from '../verify/event-types.js';
export type { HeaderSource } from '../verify/headers.js';
export type { RawBody } from '../verify/parse-event.js';
export type { SchemaIssue, StandardSchemaResult } from '../verify/standard-schema.js';
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
