// What an application's first lines and its handler types use. Everything else has an author entry:
// framework adapters '@sms-webhooks/core/adapter'; stores '/store'; queues '/queue'; tracing and metrics
// '/instrumentation'; tests '/testing'.

export type { Logger } from './base/logger.js';
export { createReceiver } from './receiver/create-receiver.js';
export type { DedupeStore } from './receiver/dedupe-store.js';
export { WebhookHandlerError } from './receiver/handler-error.js';
export type { AnyWebhookHandler, HandlerContext, WebhookHandler } from './receiver/handler-registry.js';
export { MemoryStore } from './receiver/memory-store.js';
export type { Receiver } from './receiver/receiver.js';
export type { ReceiverOptions, RespondMode } from './receiver/receiver-options.js';
export type { ReceiverResponse } from './receiver/responses.js';
export {
  isWebhookVerificationError,
  WebhookVerificationError,
} from './verify/errors.js';
export {
  type AnyWebhookEvent,
  EVENT_TYPES,
  type EventDataMap,
  type EventType,
  isKnownEventType,
  type MessageError,
  type MessageObject,
  type WebhookEvent,
} from './verify/event-types.js';
export { signPayload, signPayloadAsync } from './verify/sign-payload.js';
export type { StandardSchemaV1 } from './verify/standard-schema.js';
export { createTestDelivery, createTestDeliveryAsync, type TestDelivery } from './verify/test-delivery.js';
export { verifySignature } from './verify/verify-signature.js';
export { verifyWebhook } from './verify/verify-webhook.js';
