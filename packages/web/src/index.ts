export { BODY_USED_HINT } from '@sms-webhooks/core/adapter';
export {
  type PlatformContext,
  type RouteParams,
  type WaitUntil,
  type WebHandler,
  type WebhookHandlerOptions,
  webhookHandler,
} from './webhook-handler.js';
