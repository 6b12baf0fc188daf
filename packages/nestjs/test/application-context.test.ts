import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createTestDelivery, type Receiver, type WebhookEvent } from '@sms-webhooks/core';
import { OnSmsWebhook, SMS_WEBHOOK_RECEIVER, SmsWebhooksModule } from '@sms-webhooks/nestjs';
import { describe, expect, it } from 'vitest';
import { captureNestLogger, SECRET } from './helpers.js';

/**
 * The usual Nest worker process (a BullMQ worker, a cron job): `NestFactory.createApplicationContext`, where
 * Nest sets the HTTP adapter host to `null` rather than leaving it unset.
 */
describe('SmsWebhooksModule in NestFactory.createApplicationContext (no HTTP)', () => {
  it('starts, registers the handlers on the receiver, mounts no route, and closes', async () => {
    const seen: string[] = [];
    @Injectable()
    class WorkerHandlers {
      @OnSmsWebhook('message.delivered')
      onDelivered(event: WebhookEvent<'message.delivered'>): void {
        seen.push(`delivered ${event.id}`);
      }
    }
    @Module({
      imports: [
        SmsWebhooksModule.forRoot({ secret: SECRET, path: '/webhooks/sms', respond: 'after-handlers' }),
      ],
      providers: [WorkerHandlers],
    })
    class WorkerModule {}

    const logger = captureNestLogger();
    const context = await NestFactory.createApplicationContext(WorkerModule, { logger, abortOnError: false });
    try {
      const receiver = context.get<Receiver>(SMS_WEBHOOK_RECEIVER);
      const d = createTestDelivery('message.delivered', { secret: SECRET });
      const answer = await receiver.handle({ rawBody: d.body, headers: d.headers });
      expect([answer.status, JSON.parse(answer.body)]).toEqual([200, { received: true }]);
      expect(seen).toEqual([`delivered ${d.event.id}`]);
      const own = logger.lines.filter((line) => line.includes('[SmsWebhooksModule]'));
      expect(own).toEqual(['log [SmsWebhooksModule] WorkerHandlers.onDelivered handles message.delivered']);
    } finally {
      await context.close();
    }
  });
});
