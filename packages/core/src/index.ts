// What an application's first lines and its handler types use. Everything else has an author entry:
// framework adapters '@sms-webhooks/core/adapter'; stores '/store'; queues '/queue'; tracing and metrics
// '/instrumentation'; tests '/testing'.

export type { Clock } from './base/clock.js';
export type { Logger } from './base/logger.js';
export { SmsWebhooksError } from './base/sms-webhooks-error.js';
export { createReceiver } from './receiver/create-receiver.js';
export type { DedupeStore } from './receiver/dedupe-store.js';
export type { StaleHandler } from './receiver/delivery.js';
export type { ErrorHandler } from './receiver/error-hooks.js';
export { WebhookHandlerError } from './receiver/handler-error.js';
export type { AnyWebhookHandler, HandlerContext, WebhookHandler } from './receiver/handler-registry.js';
export type { KeepDeliveriesOptions } from './receiver/kept-deliveries.js';
export { MemoryStore, type MemoryStoreOptions } from './receiver/memory-store.js';
export type { StoreErrorMode } from './receiver/modes.js';
export type { OrderKey, OrderOption } from './receiver/order.js';
export type { DrainResult } from './receiver/pipeline.js';
export type { Receiver, ReceiverSettings } from './receiver/receiver.js';
export type { ReceiverOptions, RespondMode } from './receiver/receiver-options.js';
export type { ReceiverResponse } from './receiver/responses.js';
export type { RetryOption } from './receiver/retry.js';
export {
  isWebhookVerificationError,
  type VerificationErrorCode,
  WebhookVerificationError,
} from './verify/errors.js';
export {
  type AnyWebhookEvent,
  EVENT_TYPES,
  type EventDataMap,
  type EventEnvelope,
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
export { type SignOptions, signPayload, signPayloadAsync } from './verify/sign-payload.js';
export type { StandardSchemaV1 } from './verify/standard-schema.js';
export type {
  SecretCacheOptions,
  SecretFunction,
  SecretRequest,
  TenantOption,
  TenantRequest,
  TenantSecretResult,
} from './verify/tenant-secrets.js';
export {
  createTestDelivery,
  createTestDeliveryAsync,
  type TestDelivery,
  type TestDeliveryOptions,
} from './verify/test-delivery.js';
export { type VerifySignatureOptions, verifySignature } from './verify/verify-signature.js';
export { type VerifyWebhookOptions, verifyWebhook } from './verify/verify-webhook.js';
