import { type Attributes, context, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  ParentBasedSampler,
  type Sampler,
  SamplingDecision,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { createReceiver, createTestDelivery } from '@sms-webhooks/core';
import { ATTR, MESSAGING_SYSTEM, otelInstrumentation, SPAN } from '@sms-webhooks/otel';
import { describe, expect, it } from 'vitest';
import { useAsyncContext } from './telemetry.js';

const secret = 'whsec_otel_sampler_0123456789abcdefgh';
const quiet = { warn() {}, error() {} };

/** Samples everything, and remembers what it was shown for each span it was asked about. */
class WatchingSampler implements Sampler {
  readonly seen = new Map<string, Attributes>();
  shouldSample(_ctx: unknown, _traceId: string, name: string, _kind: SpanKind, attributes: Attributes) {
    this.seen.set(name, { ...attributes });
    return { decision: SamplingDecision.RECORD_AND_SAMPLED };
  }
  toString() {
    return 'WatchingSampler';
  }
}

function setUp(sampler: Sampler) {
  useAsyncContext();
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({
    sampler,
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  const receiver = createReceiver({
    secret,
    logger: quiet,
    instrumentation: otelInstrumentation({ tracerProvider }),
  });
  receiver.on('message.delivered', () => {});
  async function deliver(): Promise<void> {
    const d = createTestDelivery('message.delivered', { secret });
    expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
    await receiver.drain();
  }
  return { tracerProvider, exporter, deliver };
}

describe('@sms-webhooks/otel: what a sampler sees', () => {
  it('a root delivery span shows its sampler the messaging system, operation, store and method at its start', async () => {
    const sampler = new WatchingSampler();
    const { tracerProvider, deliver } = setUp(sampler);
    await context.with(ROOT_CONTEXT, deliver);
    expect(sampler.seen.get(SPAN.delivery)).toMatchObject({
      [ATTR.messagingSystem]: MESSAGING_SYSTEM,
      [ATTR.messagingOperationType]: 'process',
      [ATTR.store]: 'MemoryStore',
      [ATTR.httpMethod]: 'POST',
    });
    await tracerProvider.shutdown();
  });

  it('under a parent the attributes are set after the start, and the span still has every one', async () => {
    // The SDK's default sampler follows the parent's decision for a child, whatever its attributes.
    const { tracerProvider, exporter, deliver } = setUp(
      new ParentBasedSampler({ root: new WatchingSampler() }),
    );
    const parent = tracerProvider.getTracer('app').startSpan('app request', { kind: SpanKind.SERVER });
    await context.with(trace.setSpan(ROOT_CONTEXT, parent), deliver);
    parent.end();
    const delivery = exporter.getFinishedSpans().find((s) => s.name === SPAN.delivery)!;
    expect(delivery.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
    expect(delivery.kind).toBe(SpanKind.INTERNAL);
    expect(delivery.attributes).toMatchObject({
      [ATTR.messagingSystem]: MESSAGING_SYSTEM,
      [ATTR.messagingOperationType]: 'process',
      [ATTR.store]: 'MemoryStore',
      [ATTR.respond]: 'immediately',
      [ATTR.httpMethod]: 'POST',
      [ATTR.eventType]: 'message.delivered',
      [ATTR.outcome]: 'received',
    });
    await tracerProvider.shutdown();
  });
});
