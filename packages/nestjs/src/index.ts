export type {
  SmsWebhooksModuleAsyncOptions,
  SmsWebhooksModuleBase,
  SmsWebhooksModuleExtras,
  SmsWebhooksModuleForRootOptions,
  SmsWebhooksModuleOptions,
} from './module-options.js';
export { nestLogger } from './nest-logger.js';
export {
  type CheckedSmsWebhookHandlerMethod,
  type OnCheckedSmsWebhookDecorator,
  OnSmsWebhook,
  type OnSmsWebhookDecorator,
  type SmsWebhookHandlerMethod,
} from './on-sms-webhook.js';
export { SmsWebhooksModule } from './sms-webhooks.module.js';
export { InjectSmsWebhookReceiver, SMS_WEBHOOK_RECEIVER } from './tokens.js';
