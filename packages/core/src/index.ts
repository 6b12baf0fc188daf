// What an application uses. Framework adapters: '@sms-webhooks/core/adapter'; store, queue and
// instrumentation authors: '/store', '/queue', '/instrumentation'; test helpers: '@sms-webhooks/core/testing'.
export type { Awaitable, ClaimResult, DedupeStore } from './receiver/dedupe-store.js';
export type { Dispatch, DispatchClaim, DispatchedEvent } from './receiver/dispatch.js';
export { WebhookHandlerError } from './receiver/handler-error.js';
export type {
  AnyWebhookHandler,
  HandlerContext,
  OrderClaim,
  WebhookHandler,
} from './receiver/handler-registry.js';
export type { DrainResult } from './receiver/in-flight.js';
export type { Instrumentation } from './receiver/instrumentation.js';
export { MemoryStore, type MemoryStoreOptions } from './receiver/memory-store.js';
export type { OrderKey, OrderOption } from './receiver/order.js';
export {
  createReceiver,
  type ErrorHandler,
  type IncomingDelivery,
  type Receiver,
  type Refusal,
  type RefusalHandler,
  type StaleHandler,
} from './receiver/receiver.js';
export type { ReceiverOptions, RespondMode, StoreErrorMode } from './receiver/receiver-options.js';
export type { ReceiverResponse } from './receiver/responses.js';
export type { RetryOption } from './receiver/retry.js';
export { type Clock, systemClock } from './verify/clock.js';
export {
  isWebhookVerificationError,
  type ResponseErrorCode,
  type VerificationErrorCode,
  WebhookVerificationError,
} from './verify/errors.js';
export {
  type AnyWebhookEvent,
  EVENT_TYPES,
  type EventDataMap,
  type EventType,
  isKnownEventType,
  type MessageError,
  type MessageKind,
  type MessageObject,
  type MessageStatus,
  type OpenString,
  type SmsSummary,
  type UnknownWebhookEvent,
  type WebhookEvent,
  type WebhookTestData,
} from './verify/event-types.js';
export type { HeaderSource } from './verify/headers.js';
export type { Logger } from './verify/logger.js';
export type { RawBody } from './verify/raw-body.js';
export { type SignOptions, signPayload } from './verify/sign-payload.js';
export { signPayloadAsync } from './verify/sign-payload-async.js';
export { createTestDelivery, type TestDelivery, type TestDeliveryOptions } from './verify/test-delivery.js';
export { createTestDeliveryAsync } from './verify/test-delivery-async.js';
export {
  DEFAULT_TOLERANCE_SECONDS,
  type VerifySignatureOptions,
  verifySignature,
} from './verify/verify-signature.js';
export { type VerifyWebhookOptions, verifyWebhook } from './verify/verify-webhook.js';
