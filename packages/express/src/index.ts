export {
  type WebhookNext,
  type WebhookRequest,
  type WebhookRequestHandler,
  webhookMiddleware,
} from './webhook-middleware.js';
