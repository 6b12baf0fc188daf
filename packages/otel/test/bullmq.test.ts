import { SpanKind, trace } from '@opentelemetry/api';
import { createWorker, enqueueTo, jobIdFor } from '@sms-webhooks/bullmq';
import { createReceiver, createTestDelivery, MemoryStore } from '@sms-webhooks/core';
import { ATTR, EVENT, METRIC, otelInstrumentation, SPAN } from '@sms-webhooks/otel';
import { type RedisServer, startRedisServer } from '@sms-webhooks/test-helpers/redis-server';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childrenOf, type Telemetry, telemetry } from './telemetry.js';

const secret = 'whsec_otel_bullmq_tests_0123456789abcdef';
const quiet = { warn() {}, error() {} };

describe('BullMQ: the job carries the delivery trace context, the worker links its span to it', () => {
  let redis: RedisServer;
  let t: Telemetry;

  beforeAll(async () => {
    redis = await startRedisServer({ local: true });
    t = telemetry();
  });

  afterAll(async () => {
    await t?.shutdown();
    await redis?.stop();
  });

  /** A queue of its own on the test's Redis, and the connection a worker for it needs. */
  function newQueue(name: string) {
    const { hostname, port } = new URL(redis.url);
    const connection = { host: hostname, port: Number(port), maxRetriesPerRequest: null };
    return { connection, name, queue: new Queue(name, { connection }) };
  }

  it("dispatch: enqueueTo(queue) puts a traceparent in the job; the worker's `sms-webhooks job` span links to the delivery and the handler's spans nest in it", async () => {
    const { connection, name, queue } = newQueue(`otel-${Date.now()}`);
    const receiver = createReceiver({
      secret,
      store: new MemoryStore(),
      logger: quiet,
      dispatch: enqueueTo(queue),
      instrumentation: otelInstrumentation({
        tracerProvider: t.tracerProvider,
        meterProvider: t.meterProvider,
      }),
    });
    const tracer = t.tracerProvider.getTracer('app');
    let handled!: () => void;
    const done = new Promise<void>((resolve) => {
      handled = resolve;
    });
    receiver.on('message.delivered', async () => {
      tracer.startActiveSpan('send receipt', (span) => span.end());
      handled();
    });
    const worker = createWorker(receiver, { connection, queue: name, logger: quiet });
    try {
      const d = createTestDelivery('message.delivered', { secret });
      expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
      const job = await queue.getJob(jobIdFor(d.event.id));
      const delivery = t.span(SPAN.delivery);
      const { traceId, spanId } = delivery.spanContext();
      expect(job?.data.traceContext).toEqual({ traceparent: `00-${traceId}-${spanId}-01` });

      await done;
      const deadline = Date.now() + 5000;
      while (!t.spans().some((s) => s.name === SPAN.job) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const run = t.span(SPAN.job);
      expect(run.kind).toBe(SpanKind.CONSUMER);
      expect(run.links.map((l) => [l.context.traceId, l.context.spanId])).toEqual([[traceId, spanId]]);
      expect(run.attributes).toMatchObject({
        [ATTR.messageId]: d.event.id,
        [ATTR.eventType]: 'message.delivered',
        [ATTR.messagingOperationType]: 'process',
      });
      expect(run.status.code).toBe(0);
      expect(childrenOf(t.spans(), run).map((s) => s.name)).toEqual(['send receipt']);
      expect(trace.getActiveSpan()).toBeUndefined();
      // The handler ran in the worker, not in the delivery: its duration is recorded there.
      expect(
        await t.total(METRIC.handlerDuration, {
          [ATTR.eventType]: 'message.delivered',
          [ATTR.handlerName]: 'anonymous',
        }),
      ).toBe(1);
      expect(await t.total(METRIC.handlersActive, { [ATTR.eventType]: 'message.delivered' })).toBe(0);
    } finally {
      await worker.close();
      await queue.close();
    }
  }, 30_000);

  it('a worker created inside a span that has ended starts each job in a trace of its own, linked to its delivery', async () => {
    const w = telemetry();
    const { connection, name, queue } = newQueue(`otel-startup-${Date.now()}`);
    const receiver = createReceiver({
      secret,
      store: new MemoryStore(),
      logger: quiet,
      dispatch: enqueueTo(queue),
      instrumentation: otelInstrumentation({
        tracerProvider: w.tracerProvider,
        meterProvider: w.meterProvider,
      }),
    });
    receiver.on('message.delivered', () => {});
    // An app's start-up traced as one span: the worker's loop keeps that span's context for good.
    const worker = w.tracerProvider.getTracer('app').startActiveSpan('start-up', (span) => {
      try {
        return createWorker(receiver, { connection, queue: name, logger: quiet });
      } finally {
        span.end();
      }
    });
    try {
      const d = createTestDelivery('message.delivered', { secret });
      expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
      const deadline = Date.now() + 10_000;
      while (!w.spans().some((s) => s.name === SPAN.job) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const run = w.span(SPAN.job);
      const delivery = w.span(SPAN.delivery);
      expect(run.parentSpanContext).toBeUndefined();
      expect(run.spanContext().traceId).not.toBe(w.span('start-up').spanContext().traceId);
      expect(run.links.map((l) => l.context.spanId)).toEqual([delivery.spanContext().spanId]);
    } finally {
      await worker.close();
      await queue.close();
      await w.shutdown();
    }
  }, 30_000);

  it.each([
    ['delivery', 'a failed handler is an event on the job span'],
    ['full', 'each handler has a span under the job span'],
  ] as const)(
    "worker handlers with detail '%s': their duration by name and error type; %s",
    async (detail, _what) => {
      const w = telemetry();
      const { connection, name, queue } = newQueue(`otel-handlers-${detail}-${Date.now()}`);
      const receiver = createReceiver({
        secret,
        store: new MemoryStore(),
        logger: quiet,
        dispatch: enqueueTo(queue, { attempts: 1 }),
        instrumentation: otelInstrumentation({
          tracerProvider: w.tracerProvider,
          meterProvider: w.meterProvider,
          detail,
        }),
      });
      let ran = 0;
      receiver.on('message.failed', function recordFailure() {
        ran++;
      });
      receiver.on('message.failed', function alertOps() {
        ran++;
        throw Object.assign(new Error('pager down'), { code: 'PAGER_DOWN' });
      });
      const worker = createWorker(receiver, { connection, queue: name, logger: quiet });
      try {
        const d = createTestDelivery('message.failed', { secret });
        expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
        const deadline = Date.now() + 10_000;
        while (!w.spans().some((s) => s.name === SPAN.job) && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        expect(ran).toBe(2);
        const run = w.span(SPAN.job);
        expect(run.status.code).toBe(2);
        const children = childrenOf(w.spans(), run);
        if (detail === 'full') {
          expect(children.map((s) => s.name).sort()).toEqual([
            `${SPAN.handlerPrefix}alertOps`,
            `${SPAN.handlerPrefix}recordFailure`,
          ]);
          const failedSpan = children.find((s) => s.name === `${SPAN.handlerPrefix}alertOps`)!;
          expect(failedSpan.attributes[ATTR.errorType]).toBe('PAGER_DOWN');
          expect(failedSpan.status.code).toBe(2);
          expect(run.events.filter((e) => e.name === EVENT.handler)).toEqual([]);
        } else {
          expect(children).toEqual([]);
          const events = run.events.filter((e) => e.name === EVENT.handler);
          expect(events.map((e) => e.attributes)).toEqual([
            { [ATTR.handlerName]: 'alertOps', [ATTR.errorType]: 'PAGER_DOWN' },
          ]);
        }
        const type = { [ATTR.eventType]: 'message.failed' };
        expect(await w.total(METRIC.handlerDuration, { ...type, [ATTR.handlerName]: 'recordFailure' })).toBe(
          1,
        );
        expect(
          await w.total(METRIC.handlerDuration, {
            ...type,
            [ATTR.handlerName]: 'alertOps',
            [ATTR.errorType]: 'PAGER_DOWN',
          }),
        ).toBe(1);
        expect(await w.total(METRIC.handlersActive, type)).toBe(0);
      } finally {
        await worker.close();
        await queue.close();
        await w.shutdown();
      }
    },
    30_000,
  );
});
