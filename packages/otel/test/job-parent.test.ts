import { context, ROOT_CONTEXT, SpanKind, TraceFlags, trace } from '@opentelemetry/api';
import { createReceiver, createTestDelivery } from '@sms-webhooks/core';
import type { AdapterReceiver } from '@sms-webhooks/core/queue';
import { otelInstrumentation, SPAN } from '@sms-webhooks/otel';
import { afterEach, describe, expect, it } from 'vitest';
import { type Telemetry, telemetry } from './telemetry.js';

const secret = 'whsec_otel_job_parent_0123456789abcdef';
const quiet = { warn() {}, error() {} };

/** What a queue worker does with a job: the receiver's `runHandlers`, in whatever context is active. */
describe('@sms-webhooks/otel: where a queued job span starts', () => {
  let t: Telemetry;
  afterEach(() => t.shutdown());

  function receiver() {
    const r = createReceiver({
      secret,
      logger: quiet,
      instrumentation: otelInstrumentation({
        tracerProvider: t.tracerProvider,
        meterProvider: t.meterProvider,
      }),
    });
    r.on('message.delivered', () => {});
    return r;
  }
  const event = () => createTestDelivery('message.delivered', { secret }).event;

  it("under a queue instrumentation's open consumer span: nests in it", async () => {
    t = telemetry();
    const r = receiver();
    const consumer = t.tracerProvider
      .getTracer('queue')
      .startSpan('orders process', { kind: SpanKind.CONSUMER });
    await context.with(trace.setSpan(ROOT_CONTEXT, consumer), () =>
      (r as AdapterReceiver).runHandlers(event()),
    );
    consumer.end();
    expect(t.span(SPAN.job).parentSpanContext?.spanId).toBe(consumer.spanContext().spanId);
  });

  it('under a span that has ended (the one the worker was created in): a trace of its own', async () => {
    t = telemetry();
    const r = receiver();
    const startUp = t.tracerProvider.getTracer('app').startSpan('start-up');
    startUp.end();
    await context.with(trace.setSpan(ROOT_CONTEXT, startUp), () =>
      (r as AdapterReceiver).runHandlers(event()),
    );
    const job = t.span(SPAN.job);
    expect(job.parentSpanContext).toBeUndefined();
    expect(job.spanContext().traceId).not.toBe(startUp.spanContext().traceId);
  });

  it('under a span sampled out: follows its decision, and records nothing', async () => {
    t = telemetry();
    const r = receiver();
    const sampledOut = trace.wrapSpanContext({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: TraceFlags.NONE,
    });
    await context.with(trace.setSpan(ROOT_CONTEXT, sampledOut), () =>
      (r as AdapterReceiver).runHandlers(event()),
    );
    expect(t.spans().filter((s) => s.name === SPAN.job)).toEqual([]);
  });
});
