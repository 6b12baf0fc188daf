export { type Client, createClient } from './client.js';
export type { ClientOptions } from './client-options.js';
export { type DeliveryOutcome, deliveryOutcome } from './delivery-outcome.js';
export { type FieldError, isServiceApiError, ServiceApiError } from './service-api-error.js';
export type {
  List,
  TokenResponse,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookEventType,
  WebhookIn,
  WebhookList,
  WebhookOut,
} from './types.js';
export { WEBHOOK_EVENT_TYPES } from './types.js';
export { MAX_DESCRIPTION_LENGTH, MAX_URL_LENGTH } from './validate-input.js';
