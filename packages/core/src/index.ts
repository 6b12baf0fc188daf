export { BodyBudget } from './body-budget.js';
export type { Awaitable, ClaimResult, DedupeStore } from './dedupe-store.js';
export { isDedupeStore } from './dedupe-store.js';
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
export {
  DEFAULT_HEADER_PREFIX,
  type HeaderNames,
  type HeaderSource,
  headerNames,
  readHeader,
} from './headers.js';
export type { DrainResult } from './in-flight.js';
export { lingerOnClose } from './linger-close.js';
export type { Logger } from './logger.js';
export { MemoryStore, type MemoryStoreOptions } from './memory-store.js';
export { checkEventHeaders, parseEvent } from './parse-event.js';
export { isRawBody, type RawBody, rawBodyByteLength } from './raw-body.js';
export {
  type BodyStream,
  type RequestBodyLimits,
  type RequestBodyResult,
  readRequestBody,
  readRequestBodyThen,
  requestBodyConsumed,
} from './read-request-body.js';
export { createReceiver, type ErrorHandler, type IncomingDelivery, type Receiver } from './receiver.js';
export type { ReceiverOptions, RespondMode, StoreErrorMode } from './receiver-options.js';
export {
  errorResponse,
  METHOD_NOT_ALLOWED,
  payloadTooLarge,
  RAW_BODY_HINT,
  RAW_BODY_UNAVAILABLE,
  type ReceiverResponse,
  rawBodyHint,
} from './responses.js';
export { computeSignature, type SignOptions, signPayload } from './sign-payload.js';
export { MAX_SIGNATURE_HEADER_LENGTH, MAX_SIGNATURES, parseSignatureHeader } from './signature-header.js';
export {
  createTestDelivery,
  randomId,
  sampleData,
  type TestDelivery,
  type TestDeliveryOptions,
} from './test-delivery.js';
export {
  DEFAULT_TOLERANCE_SECONDS,
  type VerifySignatureOptions,
  verifySignature,
} from './verify-signature.js';
export { type VerifyWebhookOptions, verifyWebhook } from './verify-webhook.js';
