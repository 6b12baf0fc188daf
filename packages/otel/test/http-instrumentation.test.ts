import { createRequire } from 'node:module';
import { SpanKind } from '@opentelemetry/api';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { createReceiver, createTestDelivery, type Receiver } from '@sms-webhooks/core';
import { ATTR, METRIC, otelInstrumentation, SPAN } from '@sms-webhooks/otel';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, type Running, serve } from './servers.js';
import { childrenOf, type Telemetry, telemetry } from './telemetry.js';

const secret = 'whsec_otel_http_instrumentation_0123456789';
const quiet = { warn() {}, error() {} };

// One SDK and the real HTTP instrumentation for the whole file: the instrumentation patches node:http's
// Server once, as an application's start-up does.
let t: Telemetry;
let http: HttpInstrumentation;

beforeAll(() => {
  t = telemetry();
  http = new HttpInstrumentation();
  registerInstrumentations({
    tracerProvider: t.tracerProvider,
    meterProvider: t.meterProvider,
    instrumentations: [http],
  });
  // The instrumentation patches node:http when it is required: the Server prototype every adapter's
  // server shares.
  createRequire(import.meta.url)('node:http');
});

afterAll(async () => {
  http.disable();
  await t.shutdown();
});

async function post(url: string, receiver: Receiver, d: ReturnType<typeof createTestDelivery>) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...d.headers, 'user-agent': 'sms-service/1.0' },
    body: d.body,
  });
  await res.text();
  await receiver.drain();
  await t.tracerProvider.forceFlush();
  return res.status;
}

describe.each(ADAPTERS)('under @opentelemetry/instrumentation-http, through %s', (adapter) => {
  let running: Running | undefined;
  let receiver: Receiver;

  async function start(options: { httpDuplicates?: boolean } = {}): Promise<string> {
    receiver = createReceiver({
      secret,
      logger: quiet,
      instrumentation: otelInstrumentation({
        tracerProvider: t.tracerProvider,
        meterProvider: t.meterProvider,
        ...options,
      }),
    });
    receiver.on('message.delivered', function saveStatus() {});
    running = await serve(adapter, receiver);
    return running.url;
  }

  /** What one request adds to each metric's count (the SDK and its metrics are the whole file's). */
  async function counts(): Promise<Record<string, number>> {
    return {
      http: await t.total('http.server.request.duration'),
      answer: await t.total(METRIC.answerDuration),
      handler: await t.total(METRIC.handlerDuration, { [ATTR.handlerName]: 'saveStatus' }),
      delivered: await t.total(METRIC.deliveries, { [ATTR.outcome]: 'received', [ATTR.httpStatus]: 200 }),
    };
  }

  afterEach(async () => {
    await running?.close();
    running = undefined;
    t.reset();
  });

  it('the delivery span nests under the HTTP server span and leaves the method, user agent and status to it; the answer is timed once', async () => {
    const url = await start();
    const before = await counts();
    const d = createTestDelivery('message.delivered', { secret, attempt: 2 });
    expect(await post(url, receiver, d)).toBe(200);

    const spans = t.spans();
    const server = spans.find((s) => s.kind === SpanKind.SERVER);
    expect(server, 'the HTTP instrumentation made a server span').toBeDefined();
    expect(server!.attributes['http.request.method']).toBe('POST');
    expect(server!.attributes['user_agent.original']).toBe('sms-service/1.0');
    expect(server!.attributes['http.response.status_code']).toBe(200);
    const delivery = t.span(SPAN.delivery);
    expect(delivery.kind).toBe(SpanKind.INTERNAL);
    // Only HTTP is instrumented here, so no framework span stands between them.
    expect(childrenOf(spans, server!)).toContain(delivery);
    expect(delivery.attributes).toMatchObject({
      [ATTR.messageId]: d.event.id,
      [ATTR.eventType]: 'message.delivered',
      [ATTR.attempt]: 2,
      [ATTR.outcome]: 'received',
      [ATTR.messagingSystem]: 'sms_webhooks',
    });
    expect(delivery.attributes[ATTR.httpMethod]).toBeUndefined();
    expect(delivery.attributes[ATTR.userAgent]).toBeUndefined();
    expect(delivery.attributes[ATTR.httpStatus]).toBeUndefined();

    // The HTTP instrumentation timed the answer; ours counted the delivery and timed the handler.
    const after = await counts();
    expect({
      http: after.http! - before.http!,
      answer: after.answer! - before.answer!,
      handler: after.handler! - before.handler!,
      delivered: after.delivered! - before.delivered!,
    }).toEqual({ http: 1, answer: 0, handler: 1, delivered: 1 });
  });

  it('a refusal the entry answers (405) gets its span under the HTTP server span, the status left to that span', async () => {
    const url = await start();
    const res = await fetch(url);
    await res.text();
    expect(res.status).toBe(405);
    await t.tracerProvider.forceFlush();
    const server = t.spans().find((s) => s.kind === SpanKind.SERVER)!;
    expect(server.attributes['http.response.status_code']).toBe(405);
    const refusal = t.span(SPAN.delivery);
    expect(refusal.kind).toBe(SpanKind.INTERNAL);
    expect(refusal.spanContext().traceId).toBe(server.spanContext().traceId);
    expect(refusal.attributes).toMatchObject({
      [ATTR.outcome]: 'refused',
      [ATTR.errorType]: 'method_not_allowed',
    });
    expect(refusal.attributes[ATTR.httpStatus]).toBeUndefined();
  });

  it('httpDuplicates: true records them on ours as well', async () => {
    const url = await start({ httpDuplicates: true });
    const before = await counts();
    expect(await post(url, receiver, createTestDelivery('message.delivered', { secret }))).toBe(200);

    expect(t.span(SPAN.delivery).attributes).toMatchObject({
      [ATTR.httpMethod]: 'POST',
      [ATTR.userAgent]: 'sms-service/1.0',
      [ATTR.httpStatus]: 200,
    });
    const after = await counts();
    expect(after.http! - before.http!).toBe(1);
    expect(after.answer! - before.answer!).toBe(1);
  });
});
