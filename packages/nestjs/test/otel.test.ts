import { Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { createTestDelivery, type Receiver } from '@sms-webhooks/core';
import { OnSmsWebhook, SMS_WEBHOOK_RECEIVER, SmsWebhooksModule } from '@sms-webhooks/nestjs';
import { ATTR, METRIC, otelInstrumentation, SPAN } from '@sms-webhooks/otel';
import { afterEach, describe, expect, it } from 'vitest';
// The OpenTelemetry SDK set-up of the otel package's own tests (its devDependencies hold the SDK).
import { type Telemetry, telemetry } from '../../otel/test/telemetry.js';
import { SECRET } from './helpers.js';

@Injectable()
class Billing {
  @OnSmsWebhook('message.delivered')
  onDelivered(): void {}
}

@Injectable()
class Alerts {
  @OnSmsWebhook(['message.delivered', 'message.failed'])
  async notify(): Promise<void> {
    throw new Error('pager down');
  }
}

describe('SmsWebhooksModule with @sms-webhooks/otel', () => {
  let t: Telemetry;
  afterEach(() => t.shutdown());

  it("names each handler's span, attribute and metric after its method, as Class.method", async () => {
    t = telemetry();
    const instrumentation = otelInstrumentation({
      tracerProvider: t.tracerProvider,
      meterProvider: t.meterProvider,
      detail: 'full',
    });
    const moduleRef = await Test.createTestingModule({
      imports: [
        SmsWebhooksModule.forRoot({
          secret: SECRET,
          path: '/webhooks/sms',
          respond: 'after-handlers',
          instrumentation,
          logger: { warn() {}, error() {} },
        }),
      ],
      providers: [Billing, Alerts],
    }).compile();
    const app = await moduleRef.init();
    try {
      const receiver = app.get<Receiver>(SMS_WEBHOOK_RECEIVER);
      const d = createTestDelivery('message.delivered', { secret: SECRET });
      expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(500);

      const billing = t.span(`${SPAN.handlerPrefix}Billing.onDelivered`);
      const alerts = t.span(`${SPAN.handlerPrefix}Alerts.notify`);
      expect(billing.attributes[ATTR.handlerName]).toBe('Billing.onDelivered');
      expect(alerts.attributes[ATTR.handlerName]).toBe('Alerts.notify');
      expect([billing.status.code, alerts.status.code]).toEqual([0, 2]);
      const points = await t.points(METRIC.handlerDuration);
      expect(points.map((p) => p.attributes[ATTR.handlerName]).sort()).toEqual([
        'Alerts.notify',
        'Billing.onDelivered',
      ]);
    } finally {
      await app.close();
    }
  });
});
