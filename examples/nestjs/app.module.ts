import { type DynamicModule, Module } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import type { RespondMode } from '@sms-webhooks/core';
import { SmsWebhooksModule } from '@sms-webhooks/nestjs';
import { HealthController, NotesController } from './controllers.js';
import { MessageHandlers } from './message-handlers.js';
import { EXAMPLE_SETTINGS, type ExampleSettings } from './settings.js';

@Module({})
// biome-ignore lint/complexity/noStaticOnlyClass: a Nest dynamic module is a class with a static factory
export class AppModule {
  static register(settings: ExampleSettings): DynamicModule {
    return {
      module: AppModule,
      imports: [
        // In an app of your own, ConfigModule.forRoot() reads SMS_WEBHOOK_SECRET from the environment.
        ConfigModule.forRoot({
          ignoreEnvFile: true,
          load: [() => ({ SMS_WEBHOOK_SECRET: settings.secret, SMS_WEBHOOK_RESPOND: settings.respond })],
        }),
        SmsWebhooksModule.forRootAsync({
          imports: [ConfigModule],
          inject: [ConfigService],
          useFactory: (config: ConfigService) => ({
            secret: config.getOrThrow<string | string[]>('SMS_WEBHOOK_SECRET'),
            respond: config.get<RespondMode>('SMS_WEBHOOK_RESPOND') ?? 'immediately',
            store: settings.store,
            path: '/webhooks/sms',
          }),
        }),
      ],
      controllers: [HealthController, NotesController],
      providers: [{ provide: EXAMPLE_SETTINGS, useValue: settings }, MessageHandlers],
    };
  }
}
