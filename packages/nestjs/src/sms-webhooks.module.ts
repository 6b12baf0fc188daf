import { type FactoryProvider, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { createReceiver, type Receiver } from '@sms-webhooks/core';
import { SmsWebhookHandlerExplorer } from './handler-explorer.js';
import {
  SMS_WEBHOOKS_MODULE_OPTIONS,
  SmsWebhooksModuleBase,
  SPLIT_OPTIONS,
  type SplitOptions,
  splitOptions,
} from './module-options.js';
import { nestLogger } from './nest-logger.js';
import { SMS_WEBHOOK_RECEIVER } from './tokens.js';
import { SmsWebhookRoute } from './webhook-route.js';

const splitOptionsProvider: FactoryProvider<SplitOptions> = {
  provide: SPLIT_OPTIONS,
  inject: [SMS_WEBHOOKS_MODULE_OPTIONS],
  useFactory: splitOptions,
};

const receiverProvider: FactoryProvider<Receiver> = {
  provide: SMS_WEBHOOK_RECEIVER,
  inject: [SPLIT_OPTIONS],
  useFactory: ({ receiver }: SplitOptions) =>
    createReceiver({ ...receiver, logger: receiver.logger ?? nestLogger() }),
};

/**
 * `SmsWebhooksModule.forRoot({ secret, path: '/webhooks/sms' })`, or `forRootAsync({ imports, inject,
 * useFactory })`: one receiver, its route on the app's HTTP platform, and every `@OnSmsWebhook` method
 * registered on it. Import it once, in the root module.
 *
 * @example
 * ```ts
 * import { Injectable, Module } from '@nestjs/common';
 * import type { WebhookEvent } from '@sms-webhooks/core';
 * import { OnSmsWebhook, SmsWebhooksModule } from '@sms-webhooks/nestjs';
 *
 * @Injectable()
 * export class DeliveryHandlers {
 *   @OnSmsWebhook('message.delivered')
 *   async onDelivered(event: WebhookEvent<'message.delivered'>) {
 *     console.log(`${event.data.id} delivered to ${event.data.to}`); // typed per event type
 *   }
 * }
 *
 * @Module({
 *   imports: [SmsWebhooksModule.forRoot({ secret: process.env.SMS_WEBHOOK_SECRET!, path: '/webhooks/sms' })],
 *   providers: [DeliveryHandlers],
 * })
 * export class AppModule {}
 * ```
 */
@Module({
  imports: [DiscoveryModule],
  providers: [splitOptionsProvider, receiverProvider, SmsWebhookRoute, SmsWebhookHandlerExplorer],
  exports: [SMS_WEBHOOK_RECEIVER],
})
export class SmsWebhooksModule extends SmsWebhooksModuleBase {}
