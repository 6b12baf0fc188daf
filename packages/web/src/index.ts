export { type BodyReadResult, readBody } from './read-body.js';
export {
  BODY_USED_HINT,
  type PlatformContext,
  type WaitUntil,
  type WebHandler,
  type WebhookHandlerOptions,
  webhookHandler,
} from './webhook-handler.js';
