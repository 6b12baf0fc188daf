import { context, type Span, trace } from '@opentelemetry/api';
import { createReceiver, createTestDelivery, type ReceiverOptions } from '@sms-webhooks/core';
import type { AdapterReceiver } from '@sms-webhooks/core/queue';
import { ATTR, EVENT, METRIC, otelInstrumentation, SPAN } from '@sms-webhooks/otel';
import { describe, expect, it } from 'vitest';
import { type Telemetry, telemetry } from './telemetry.js';

const secret = 'whsec_otel_dispatch_tests_0123456789abcd';
const quiet = { warn() {}, error() {} };

function instrumentedReceiver(t: Telemetry, options: Partial<ReceiverOptions> = {}) {
  return createReceiver({
    secret,
    logger: quiet,
    instrumentation: otelInstrumentation({
      tracerProvider: t.tracerProvider,
      meterProvider: t.meterProvider,
    }),
    ...options,
  });
}

describe('a dispatched delivery (the queue hand-off)', () => {
  it('runs dispatch inside an `sms-webhooks dispatch` span under the delivery, so a queue sees it active', async () => {
    const t = telemetry();
    let active: Span | undefined;
    const receiver = instrumentedReceiver(t, {
      dispatch: async () => {
        active = trace.getSpan(context.active());
      },
    });
    receiver.on('message.delivered', () => {});
    const d = createTestDelivery('message.delivered', { secret });
    expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);

    const dispatch = t.span(SPAN.dispatch);
    const delivery = t.span(SPAN.delivery);
    expect(active?.spanContext().spanId).toBe(dispatch.spanContext().spanId);
    expect(dispatch.parentSpanContext?.spanId).toBe(delivery.spanContext().spanId);
    expect(delivery.attributes[ATTR.outcome]).toBe('received');
    expect(await t.total(METRIC.storeDuration, { [ATTR.storeOperation]: 'dispatch' })).toBe(1);
    await t.shutdown();
  });

  it('a queue that refuses the job: the dispatch span in error, the delivery failed with 503', async () => {
    const t = telemetry();
    const receiver = instrumentedReceiver(t, {
      dispatch: async () => {
        throw new Error('READONLY You cannot write against a read only replica.');
      },
    });
    receiver.on('message.delivered', () => {});
    const d = createTestDelivery('message.delivered', { secret });
    expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(503);
    const dispatch = t.span(SPAN.dispatch);
    expect(dispatch.status.code).toBe(2);
    expect(dispatch.events.map((e) => e.name)).toContain('exception');
    expect(t.span(SPAN.delivery).attributes).toMatchObject({
      [ATTR.outcome]: 'failed',
      [ATTR.errorType]: 'store_unavailable',
    });
    expect(
      await t.total(METRIC.storeDuration, { [ATTR.storeOperation]: 'dispatch', [ATTR.errorType]: 'Error' }),
    ).toBe(1);
    await t.shutdown();
  });

  it("a worker's failed run: the job span in error with the exception, linked to the traceparent it was given", async () => {
    const t = telemetry();
    const receiver = instrumentedReceiver(t);
    receiver.on('message.failed', async () => {
      throw new RangeError('no such template');
    });
    const { event } = createTestDelivery('message.failed', { secret });
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    await expect(
      (receiver as AdapterReceiver).runHandlers(event, {}, { traceContext: { traceparent } }),
    ).rejects.toMatchObject({
      code: 'handler_failed',
    });
    const run = t.span(SPAN.job);
    expect(run.links.map((l) => l.context.spanId)).toEqual(['b7ad6b7169203331']);
    expect(run.status).toMatchObject({ code: 2 });
    expect(run.attributes[ATTR.errorType]).toBe('handler_failed');
    expect(run.attributes[ATTR.handlersFailed]).toBe(1);
    // The handler's failure, recorded once: its event and its exception (the RangeError).
    expect(run.events.map((e) => e.name)).toEqual([EVENT.handler, 'exception']);
    expect(run.events[1]!.attributes?.['exception.type']).toBe('RangeError');

    // A malformed or missing traceparent: the run is traced all the same, without a link.
    await (receiver as AdapterReceiver).runHandlers(
      createTestDelivery('message.sent', { secret }).event,
      {},
      {
        traceContext: { traceparent: '00-zz-nope-01' },
      },
    );
    const runs = t.spans().filter((s) => s.name === SPAN.job);
    expect(runs).toHaveLength(2);
    expect(runs[1]!.links).toEqual([]);
    await t.shutdown();
  });
});
