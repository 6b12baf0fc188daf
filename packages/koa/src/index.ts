export {
  type WebhookContext,
  type WebhookKoaMiddleware,
  type WebhookMiddlewareOptions,
  webhookMiddleware,
} from './webhook-middleware.js';
