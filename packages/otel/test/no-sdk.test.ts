import { context, trace } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { createReceiver, createTestDelivery } from '@sms-webhooks/core';
import { ATTR, METRIC, otelInstrumentation } from '@sms-webhooks/otel';
import { describe, expect, it } from 'vitest';
import { telemetry, useAsyncContext } from './telemetry.js';

const secret = 'whsec_otel_no_sdk_tests_0123456789abcdef';
const quiet = { warn() {}, error() {} };

describe('otelInstrumentation without an SDK, or with spans not sampled', () => {
  it('with nothing registered: the receiver answers and runs handlers, no span is ever active', async () => {
    useAsyncContext();
    const receiver = createReceiver({ secret, logger: quiet, instrumentation: otelInstrumentation() });
    const seen: unknown[] = [];
    receiver.on('message.delivered', () => {
      seen.push(trace.getSpan(context.active()));
    });
    const d = createTestDelivery('message.delivered', { secret });
    const res = await receiver.handle({ rawBody: d.body, headers: d.headers });
    await receiver.drain();
    expect(res.status).toBe(200);
    expect(seen).toEqual([undefined]);
  });

  it('a sampler that drops the span: no span exported, no context switched, metrics still counted', async () => {
    const t = telemetry();
    const exporter = new InMemorySpanExporter();
    const unsampled = new TracerProvider({
      sampler: new AlwaysOffSampler(),
      spanProcessors: [new SimpleSpanProcessor({ exporter })],
    });
    const receiver = createReceiver({
      secret,
      logger: quiet,
      instrumentation: otelInstrumentation({ tracerProvider: unsampled, meterProvider: t.meterProvider }),
    });
    const seen: unknown[] = [];
    receiver.on('message.delivered', function handle() {
      seen.push(trace.getSpan(context.active()));
    });
    const d = createTestDelivery('message.delivered', { secret });
    await receiver.handle({ rawBody: d.body, headers: d.headers });
    await receiver.drain();
    expect(seen).toEqual([undefined]);
    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(await t.total(METRIC.deliveries, { [ATTR.outcome]: 'received' })).toBe(1);
    expect(await t.total(METRIC.handlerDuration, { [ATTR.handlerName]: 'handle' })).toBe(1);
    await t.shutdown();
  });

  it('with nothing registered no observer is made at all; a tracer provider registered later is picked up by the next delivery', async () => {
    const instrumentation = otelInstrumentation();
    const receiverInfo = { store: 'MemoryStore', respond: 'immediately' } as const;
    expect(instrumentation.startDelivery({}, receiverInfo)).toBeUndefined();

    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    expect(trace.setGlobalTracerProvider(provider)).toBe(true);
    try {
      expect(instrumentation.startDelivery({}, receiverInfo)).toBeDefined();
      const receiver = createReceiver({ secret, logger: quiet, instrumentation });
      receiver.on('message.delivered', () => {});
      const d = createTestDelivery('message.delivered', { secret });
      expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
      await receiver.drain();
      expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual(['sms-webhooks delivery']);
    } finally {
      trace.disable();
      await provider.shutdown();
    }
    expect(instrumentation.startDelivery({}, receiverInfo)).toBeUndefined();
  });

  it('refuses providers that are not providers, saying what it takes', () => {
    expect(() => otelInstrumentation({ tracerProvider: {} as never })).toThrow(
      /`tracerProvider` must have getTracer\(\)/,
    );
    expect(() => otelInstrumentation({ meterProvider: 'x' as never })).toThrow(
      /`meterProvider` must have getMeter\(\)/,
    );
    expect(() => otelInstrumentation(null as never)).toThrow(/takes an object/);
    expect(() => otelInstrumentation({ httpDuplicates: 'yes' as never })).toThrow(
      /`httpDuplicates` is true or false \(the default\), not "yes"/,
    );
  });
});
