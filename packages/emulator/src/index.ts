export { ApiError, type ApiErrorCode, type FieldError } from './api-error.js';
export { createEmulator, type Emulator } from './emulator.js';
export type { SimulateSendOptions } from './events.js';
export {
  type AttemptReport,
  type EmulatorClock,
  type EmulatorOptions,
  MAX_ATTEMPTS,
  type RateLimitOptions,
  RETRY_WAITS_MS,
  TOKEN_TTL_SECONDS,
} from './options.js';
export type { DeliveryHistory, EmittedEvent, SimulatedSend } from './state.js';
export type {
  DeliveryStatus,
  ListOf,
  TokenMode,
  TokenResponse,
  WebhookDelivery,
  WebhookOut,
} from './types.js';
export { isLoopbackHost, MAX_DESCRIPTION_LENGTH, MAX_URL_LENGTH } from './validate-webhook.js';
