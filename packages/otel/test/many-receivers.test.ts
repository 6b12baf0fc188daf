import { createReceiver, createTestDelivery } from '@sms-webhooks/core';
import { ATTR, METRIC, otelInstrumentation } from '@sms-webhooks/otel';
import { afterEach, describe, expect, it } from 'vitest';
import { type Telemetry, telemetry } from './telemetry.js';

const secret = 'whsec_otel_many_receivers_0123456789abc';
const quiet = { warn() {}, error() {} };

describe('@sms-webhooks/otel: several receivers on one meter', () => {
  let t: Telemetry;
  afterEach(() => t.shutdown());

  function receiver(detail?: 'full') {
    const r = createReceiver({
      secret,
      logger: quiet,
      instrumentation: otelInstrumentation({
        tracerProvider: t.tracerProvider,
        meterProvider: t.meterProvider,
        detail,
      }),
    });
    r.on('message.delivered', () => {});
    return r;
  }

  async function deliver(r: ReturnType<typeof receiver>): Promise<void> {
    const d = createTestDelivery('message.delivered', { secret });
    expect((await r.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
    await r.drain();
  }

  it('count every delivery: their counts add up instead of one hiding the others', async () => {
    t = telemetry();
    // Two apps' receivers (or one per tenant) on the global meter, each with its own instrumentation.
    const a = receiver();
    const b = receiver('full');
    await deliver(a);
    await deliver(b);
    await deliver(b);
    const received = { [ATTR.outcome]: 'received', [ATTR.eventType]: 'message.delivered' };
    expect(await t.total(METRIC.deliveries, received)).toBe(3);
    expect(await t.total(METRIC.answerDuration, received)).toBe(3);
    // Collected again: the same cumulative total, not a delta or a double count.
    expect(await t.total(METRIC.deliveries, received)).toBe(3);
    await deliver(a);
    expect(await t.total(METRIC.deliveries, received)).toBe(4);
  });
});
