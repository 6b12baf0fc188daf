// What an application uses. Adapter authors: '@sms-webhooks/core/adapter'; test helpers: '@sms-webhooks/core/testing'.
export type { Awaitable, ClaimResult, DedupeStore } from './dedupe-store.js';
export type { Dispatch, DispatchClaim, DispatchedEvent } from './dispatch.js';
export {
  isWebhookVerificationError,
  type ResponseErrorCode,
  type VerificationErrorCode,
  WebhookVerificationError,
} from './errors.js';
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
} from './event-types.js';
export { WebhookHandlerError } from './handler-error.js';
export type { AnyWebhookHandler, HandlerContext, WebhookHandler } from './handler-registry.js';
export type { HeaderSource } from './headers.js';
export type { DrainResult } from './in-flight.js';
export type { Instrumentation } from './instrumentation.js';
export type { Logger } from './logger.js';
export { MemoryStore, type MemoryStoreOptions } from './memory-store.js';
export type { RawBody } from './raw-body.js';
export {
  createReceiver,
  type ErrorHandler,
  type IncomingDelivery,
  type Receiver,
  type Refusal,
  type RefusalHandler,
} from './receiver.js';
export type { ReceiverOptions, RespondMode, StoreErrorMode } from './receiver-options.js';
export type { ReceiverResponse } from './responses.js';
export { type SignOptions, signPayload } from './sign-payload.js';
export { createTestDelivery, type TestDelivery, type TestDeliveryOptions } from './test-delivery.js';
export {
  DEFAULT_TOLERANCE_SECONDS,
  type VerifySignatureOptions,
  verifySignature,
} from './verify-signature.js';
export { type VerifyWebhookOptions, verifyWebhook } from './verify-webhook.js';
