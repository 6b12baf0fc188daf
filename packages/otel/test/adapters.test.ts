import { type Attributes, trace } from '@opentelemetry/api';
import {
  createReceiver,
  createTestDelivery,
  MemoryStore,
  type Receiver,
  type ReceiverOptions,
} from '@sms-webhooks/core';
import { ATTR, METRIC, otelInstrumentation, SPAN } from '@sms-webhooks/otel';
import { afterEach, describe, expect, it } from 'vitest';
import { ADAPTERS, type Running, serve } from './servers.js';
import { childrenOf, type Telemetry, telemetry } from './telemetry.js';

const secret = 'whsec_otel_adapter_tests_0123456789abcdef';
const quiet = { warn() {}, error() {} };

describe.each(ADAPTERS)('@sms-webhooks/otel over HTTP through %s', (adapter) => {
  let t: Telemetry;
  let running: Running | undefined;
  let receiver: Receiver;

  async function start(
    options: Partial<ReceiverOptions> = {},
    detail?: 'delivery' | 'full',
  ): Promise<string> {
    t = telemetry();
    receiver = createReceiver({
      secret,
      logger: quiet,
      instrumentation: otelInstrumentation({
        tracerProvider: t.tracerProvider,
        meterProvider: t.meterProvider,
        detail,
      }),
      ...options,
    });
    running = await serve(adapter, receiver);
    return running.url;
  }

  async function post(url: string, delivery: { body: string; headers: Record<string, string> }) {
    const res = await fetch(url, { method: 'POST', headers: delivery.headers, body: delivery.body });
    await res.text();
    await receiver.drain();
    return res.status;
  }

  /** A named handler that takes 5 ms and makes a span of its own, for the nesting checks. */
  function onDeliveredSaveStatus(): void {
    const tracer = t.tracerProvider.getTracer('app');
    receiver.on('message.delivered', async function saveStatus() {
      await new Promise((resolve) => setTimeout(resolve, 5));
      tracer.startActiveSpan('db write', (span) => span.end());
    });
  }

  async function expectTotal(metric: string, match: Attributes, value = 1): Promise<void> {
    expect(await t.total(metric, match)).toBe(value);
  }

  afterEach(async () => {
    await running?.close();
    running = undefined;
    await t.shutdown();
  });

  it("received: one delivery span with its attributes and no step events, the handler's own span nested under it; metrics", async () => {
    const url = await start();
    onDeliveredSaveStatus();
    const d = createTestDelivery('message.delivered', { secret, attempt: 2 });
    expect(await post(url, d)).toBe(200);

    const delivery = t.span(SPAN.delivery);
    expect(delivery.attributes).toMatchObject({
      [ATTR.httpMethod]: 'POST',
      [ATTR.httpStatus]: 200,
      [ATTR.messagingSystem]: 'sms_webhooks',
      [ATTR.messagingOperationType]: 'process',
      [ATTR.messageId]: d.event.id,
      [ATTR.eventType]: 'message.delivered',
      [ATTR.attempt]: 2,
      [ATTR.outcome]: 'received',
      [ATTR.store]: 'MemoryStore',
      [ATTR.respond]: 'immediately',
    });
    expect(delivery.attributes[ATTR.errorType]).toBeUndefined();
    expect(delivery.status.code).toBe(0);
    // Nothing went wrong, so no event; the span ends once the handler ran (respond: 'immediately').
    expect(delivery.events).toEqual([]);
    expect(t.spans().map((s) => s.name)).toEqual(['db write', SPAN.delivery]);
    expect(childrenOf(t.spans(), delivery).map((s) => s.name)).toEqual(['db write']);

    await expectTotal(METRIC.deliveries, {
      [ATTR.outcome]: 'received',
      [ATTR.eventType]: 'message.delivered',
      [ATTR.httpStatus]: 200,
    });
    await expectTotal(METRIC.answerDuration, { [ATTR.outcome]: 'received' });
    await expectTotal(METRIC.handlerDuration, {
      [ATTR.eventType]: 'message.delivered',
      [ATTR.handlerName]: 'saveStatus',
    });
    // Every store answers with a promise, MemoryStore too: its claim and completion are timed like any other.
    await expectTotal(METRIC.storeDuration, {
      [ATTR.storeOperation]: 'claim',
      [ATTR.storeResult]: 'claimed',
    });
    // Up by one while the handler ran, down by one after: 0 now, with a point for the type.
    const active = await t.points(METRIC.handlersActive);
    expect(active.map((p) => [p.attributes[ATTR.eventType], p.value])).toEqual([['message.delivered', 0]]);
  });

  it("detail: 'full': claim, answered and complete events, a handler span under which the handler's own span nests; store latency", async () => {
    const url = await start({}, 'full');
    onDeliveredSaveStatus();
    const d = createTestDelivery('message.delivered', { secret, attempt: 2 });
    expect(await post(url, d)).toBe(200);

    const spans = t.spans();
    const delivery = t.span(SPAN.delivery);
    expect(delivery.attributes).toMatchObject({
      [ATTR.messageId]: d.event.id,
      [ATTR.attempt]: 2,
      [ATTR.outcome]: 'received',
    });
    // The claim, then the answer (handlers run after it), the handler, then its complete.
    expect(delivery.events.map((e) => e.name)).toEqual([
      'sms_webhooks.claim',
      'sms_webhooks.answered',
      'sms_webhooks.complete',
    ]);
    expect(delivery.events[0]!.attributes).toMatchObject({ [ATTR.storeResult]: 'claimed' });
    expect(delivery.events[0]!.attributes![ATTR.storeDuration]).toBeTypeOf('number');
    expect(delivery.events[2]!.attributes).toMatchObject({ [ATTR.storeResult]: 'done' });
    expect(childrenOf(spans, delivery).map((s) => s.name)).toEqual(['sms-webhooks handler saveStatus']);
    const handler = t.span('sms-webhooks handler saveStatus');
    expect(handler.attributes).toMatchObject({
      [ATTR.eventType]: 'message.delivered',
      [ATTR.handlerName]: 'saveStatus',
    });
    expect(childrenOf(spans, handler).map((s) => s.name)).toEqual(['db write']);

    await expectTotal(METRIC.storeDuration, {
      [ATTR.storeOperation]: 'claim',
      [ATTR.storeResult]: 'claimed',
    });
    await expectTotal(METRIC.storeDuration, {
      [ATTR.storeOperation]: 'complete',
      [ATTR.storeResult]: 'done',
    });
    await expectTotal(METRIC.handlerDuration, {
      [ATTR.eventType]: 'message.delivered',
      [ATTR.handlerName]: 'saveStatus',
    });
  });

  it('handlers running: the UpDownCounter reads 1 while a handler runs', async () => {
    const url = await start();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    receiver.on('message.sent', async () => {
      started();
      await gate;
    });
    const d = createTestDelivery('message.sent', { secret });
    const res = await fetch(url, { method: 'POST', headers: d.headers, body: d.body });
    expect(res.status).toBe(200);
    await running;
    await expectTotal(METRIC.handlersActive, { [ATTR.eventType]: 'message.sent' });
    release();
    await receiver.drain();
    await expectTotal(METRIC.handlersActive, { [ATTR.eventType]: 'message.sent' }, 0);
  });

  it('duplicate: the second delivery of an event ends at its claim, counted as duplicate', async () => {
    const url = await start({}, 'full');
    receiver.on('message.delivered', () => {});
    const d = createTestDelivery('message.delivered', { secret });
    expect(await post(url, d)).toBe(200);
    expect(await post(url, d)).toBe(200);
    const deliveries = t.spans().filter((s) => s.name === SPAN.delivery);
    expect(deliveries.map((s) => s.attributes[ATTR.outcome])).toEqual(['received', 'duplicate']);
    expect(deliveries[1]!.events.map((e) => [e.name, e.attributes?.[ATTR.storeResult]])).toEqual([
      ['sms_webhooks.claim', 'completed'],
    ]);
    await expectTotal(METRIC.deliveries, { [ATTR.outcome]: 'duplicate' });
    await expectTotal(METRIC.deliveries, { [ATTR.outcome]: 'received' });
  });

  it('ignored: no handler for the type, no claim', async () => {
    const url = await start();
    receiver.on('message.delivered', () => {});
    expect(await post(url, createTestDelivery('message.failed', { secret }))).toBe(200);
    const delivery = t.span(SPAN.delivery);
    expect(delivery.attributes[ATTR.outcome]).toBe('ignored');
    expect(childrenOf(t.spans(), delivery)).toEqual([]);
    await expectTotal(METRIC.deliveries, { [ATTR.outcome]: 'ignored', [ATTR.eventType]: 'message.failed' });
  });

  it('in_flight: 409 while another owner holds the claim, with its code', async () => {
    const store = new MemoryStore();
    const url = await start({ store });
    receiver.on('message.delivered', () => {});
    const d = createTestDelivery('message.delivered', { secret });
    await store.claim(d.event.id, 'another-instance', 60_000);
    expect(await post(url, d)).toBe(409);
    expect(t.span(SPAN.delivery).attributes).toMatchObject({
      [ATTR.outcome]: 'in_flight',
      [ATTR.errorType]: 'in_flight',
      [ATTR.httpStatus]: 409,
    });
    await expectTotal(METRIC.deliveries, { [ATTR.outcome]: 'in_flight', [ATTR.errorType]: 'in_flight' });
  });

  it('refused: a bad signature and a GET, each counted with its code; no event attributes', async () => {
    const url = await start();
    receiver.on('message.delivered', () => {});
    const forged = createTestDelivery('message.delivered', {
      secret: 'whsec_not_the_right_one_000000000000',
    });
    expect(await post(url, forged)).toBe(400);
    const delivery = t.span(SPAN.delivery);
    t.reset();
    const get = await fetch(url);
    await get.text();
    expect(get.status).toBe(405);
    // The entry's 405 gets a span of its own too (refusal-spans.test.ts has the 408 and 413).
    expect(t.span(SPAN.delivery).attributes).toMatchObject({
      [ATTR.outcome]: 'refused',
      [ATTR.errorType]: 'method_not_allowed',
      [ATTR.httpStatus]: 405,
    });

    expect(delivery.attributes).toMatchObject({
      [ATTR.outcome]: 'refused',
      [ATTR.errorType]: 'signature_mismatch',
      [ATTR.httpStatus]: 400,
    });
    expect(delivery.attributes[ATTR.messageId]).toBeUndefined();
    // A 4xx is the client's error: the span's status stays unset, as for HTTP server spans.
    expect(delivery.status.code).toBe(0);
    await expectTotal(METRIC.deliveries, {
      [ATTR.outcome]: 'refused',
      [ATTR.errorType]: 'signature_mismatch',
      [ATTR.httpStatus]: 400,
    });
    await expectTotal(METRIC.deliveries, {
      [ATTR.outcome]: 'refused',
      [ATTR.errorType]: 'method_not_allowed',
      [ATTR.httpStatus]: 405,
    });
  });

  it("handler failure with 'after-handlers' and detail 'full': 500 handler_failed, exception on the handler span, release", async () => {
    const url = await start({ respond: 'after-handlers' }, 'full');
    receiver.on('message.failed', async function notifyOps() {
      throw new TypeError('pager down');
    });
    receiver.onError(() => {});
    expect(await post(url, createTestDelivery('message.failed', { secret }))).toBe(500);

    const delivery = t.span(SPAN.delivery);
    expect(delivery.attributes).toMatchObject({
      [ATTR.outcome]: 'failed',
      [ATTR.errorType]: 'handler_failed',
      [ATTR.httpStatus]: 500,
      [ATTR.handlersFailed]: 1,
    });
    expect(delivery.status.code).toBe(2);
    const handler = t.span('sms-webhooks handler notifyOps');
    expect(handler.status).toMatchObject({ code: 2, message: 'pager down' });
    expect(handler.events.find((e) => e.name === 'exception')?.attributes).toMatchObject({
      'exception.type': 'TypeError',
      'exception.message': 'pager down',
    });
    expect(delivery.events.map((e) => e.name)).toEqual(['sms_webhooks.claim', 'sms_webhooks.release']);
    expect(delivery.events[1]!.attributes).toMatchObject({ [ATTR.storeResult]: 'done' });
    await expectTotal(METRIC.deliveries, { [ATTR.outcome]: 'failed', [ATTR.errorType]: 'handler_failed' });
    await expectTotal(METRIC.handlerDuration, {
      [ATTR.handlerName]: 'notifyOps',
      [ATTR.errorType]: 'TypeError',
    });
  });

  it("handler failure with 'immediately' (retry off): 200 received, the span ends in error after the handler, with a handler and an exception event", async () => {
    const url = await start({ retry: false });
    receiver.on('message.failed', () => {
      throw new Error('later');
    });
    receiver.onError(() => {});
    expect(await post(url, createTestDelivery('message.failed', { secret }))).toBe(200);
    const delivery = t.span(SPAN.delivery);
    expect(delivery.attributes).toMatchObject({
      [ATTR.outcome]: 'received',
      [ATTR.errorType]: 'handler_failed',
      [ATTR.handlersFailed]: 1,
    });
    expect(delivery.status.code).toBe(2);
    // By default the failure is the only event: which handler, and its exception.
    expect(delivery.events.map((e) => e.name)).toEqual(['sms_webhooks.handler', 'exception']);
    expect(delivery.events[0]!.attributes).toEqual({
      [ATTR.handlerName]: 'anonymous',
      [ATTR.errorType]: 'Error',
    });
    expect(delivery.events[1]!.attributes).toMatchObject({ 'exception.message': 'later' });
    expect(childrenOf(t.spans(), delivery)).toEqual([]);
    await expectTotal(METRIC.handlerDuration, { [ATTR.handlerName]: 'anonymous', [ATTR.errorType]: 'Error' });
    expect(trace.getActiveSpan()).toBeUndefined();
  });

  it('a handler that fails once and succeeds on the in-process retry: the span ends OK, with one handler event for the failed run', async () => {
    const url = await start();
    let runs = 0;
    receiver.on('message.failed', () => {
      runs++;
      if (runs === 1) throw new Error('blip');
    });
    expect(await post(url, createTestDelivery('message.failed', { secret }))).toBe(200);
    expect(runs).toBe(2);
    const delivery = t.span(SPAN.delivery);
    expect(delivery.status.code).not.toBe(2);
    expect(delivery.attributes[ATTR.errorType]).toBeUndefined();
    expect(delivery.events.filter((e) => e.name === 'sms_webhooks.handler')).toHaveLength(1);
  });
});
