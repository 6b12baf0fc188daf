import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { Receiver } from '@sms-webhooks/core';
import { SMS_WEBHOOK_RECEIVER } from '@sms-webhooks/nestjs';
import { AppModule } from './app.module.js';
import type { ExampleSettings } from './settings.js';

export type Platform = 'express' | 'fastify';

export interface ExampleOptions extends ExampleSettings {
  /** Default 'express'. */
  platform?: Platform;
  /** Nest's own start-up lines ("Mapped {/webhooks/sms, POST}", …). Default on. */
  nestLogs?: boolean;
}

export interface ExampleApp {
  /** Not yet listening; `app.close()` waits for in-flight handlers. */
  app: INestApplication;
  receiver: Receiver;
}

export async function createApp({ platform = 'express', nestLogs = true, ...settings }: ExampleOptions) {
  const adapter = platform === 'fastify' ? new FastifyAdapter() : new ExpressAdapter();
  const app = await NestFactory.create(AppModule.register(settings), adapter, {
    logger: nestLogs ? undefined : false,
  });
  return { app, receiver: app.get<Receiver>(SMS_WEBHOOK_RECEIVER) } satisfies ExampleApp;
}
