import { SpanKind, trace } from '@opentelemetry/api';
import { createReceiver, createTestDelivery } from '@sms-webhooks/core';
import {
  ATTR,
  EVENT,
  METRIC,
  type OtelInstrumentationOptions,
  otelInstrumentation,
  SPAN,
} from '@sms-webhooks/otel';
import { createWorker, enqueueTo, jobIdFor, type WebhookWorker } from '@sms-webhooks/pg-boss';
import { PostgresStore } from '@sms-webhooks/postgres';
import { waitFor } from '@sms-webhooks/test-helpers';
import { createDatabase, pgPool, type TestDatabase } from '@sms-webhooks/test-helpers/postgres-db';
import type pg from 'pg';
import PgBoss from 'pg-boss';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { childrenOf, type Telemetry, telemetry } from './telemetry.js';

const secret = 'whsec_otel_pgboss_tests_0123456789abcdef';
const quiet = { warn() {}, error() {} };

describe('pg-boss: the job carries the delivery trace context, the worker links its span to it', () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  let store: PostgresStore<pg.PoolClient>;
  let boss: PgBoss;
  const cleanups: Array<() => Promise<unknown>> = [];
  let queues = 0;

  beforeAll(async () => {
    db = await createDatabase('otel_pg_boss');
    pool = pgPool(db.url);
    store = new PostgresStore({ pool });
    await store.migrate();
    boss = new PgBoss({ connectionString: db.url, schedule: false });
    boss.on('error', () => {});
    await boss.start();
  });

  afterEach(async () => {
    for (const fn of cleanups.reverse()) await fn().catch(() => {});
    cleanups.length = 0;
  });

  afterAll(async () => {
    await boss?.stop({ graceful: false, wait: true, timeout: 1000 });
    await store?.shutdown();
    await pool?.end();
    await db?.drop();
  });

  async function newQueue(): Promise<string> {
    queues += 1;
    const name = `otel_${queues}_${process.pid}`;
    await boss.createQueue(name);
    return name;
  }

  function closing(worker: WebhookWorker): WebhookWorker {
    cleanups.push(() => worker.close());
    return worker;
  }

  function instrumentedReceiver(
    t: Telemetry,
    queue: string,
    detail: OtelInstrumentationOptions['detail'] = 'delivery',
  ) {
    return createReceiver({
      secret,
      store,
      logger: quiet,
      dispatch: enqueueTo(boss, { store, queue, attempts: 1 }),
      instrumentation: otelInstrumentation({
        tracerProvider: t.tracerProvider,
        meterProvider: t.meterProvider,
        detail,
      }),
    });
  }

  it("dispatch: enqueueTo(boss) runs in a dispatch span and puts a traceparent in the job; the worker's `sms-webhooks job` span links to the delivery and the handler's spans nest in it", async () => {
    const t = telemetry();
    cleanups.push(() => t.shutdown());
    const queue = await newQueue();
    const receiver = instrumentedReceiver(t, queue);
    const tracer = t.tracerProvider.getTracer('app');
    receiver.on('message.delivered', async () => {
      tracer.startActiveSpan('send receipt', (span) => span.end());
    });

    const d = createTestDelivery('message.delivered', { secret });
    expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
    const delivery = t.span(SPAN.delivery);
    const { traceId, spanId } = delivery.spanContext();
    // The receiving side: the transaction that commits the claim and the job, in a span of its own.
    const dispatch = t.span(SPAN.dispatch);
    expect(dispatch.parentSpanContext?.spanId).toBe(spanId);
    expect(dispatch.attributes[ATTR.storeOperation]).toBe('dispatch');
    expect(dispatch.status.code).toBe(0);
    expect(delivery.attributes[ATTR.outcome]).toBe('received');
    // No handler ran on the receiving side.
    expect(t.spans().map((s) => s.name)).not.toContain('send receipt');
    const job = await boss.getJobById<{ traceContext?: unknown }>(queue, jobIdFor(d.event.id));
    expect(job?.data.traceContext).toEqual({ traceparent: `00-${traceId}-${spanId}-01` });

    closing(await createWorker(receiver, boss, { queue, pollingIntervalSeconds: 0.5, logger: quiet }));
    await waitFor(() => t.spans().some((s) => s.name === SPAN.job), 'the job span');
    const run = t.span(SPAN.job);
    expect(run.kind).toBe(SpanKind.CONSUMER);
    expect(run.links.map((l) => [l.context.traceId, l.context.spanId])).toEqual([[traceId, spanId]]);
    // A link, not a parent: the job runs in a trace of its own.
    expect(run.parentSpanContext).toBeUndefined();
    expect(run.spanContext().traceId).not.toBe(traceId);
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
    await waitFor(
      async () => (await boss.getJobById(queue, jobIdFor(d.event.id)))?.state === 'completed',
      'the job to complete',
    );
  }, 30_000);

  it.each([
    ['delivery', 'a failed handler is an event on the job span'],
    ['full', 'each handler has a span under the job span'],
  ] as const)(
    "worker handlers with detail '%s': their duration by name and error type; %s",
    async (detail, _what) => {
      const w = telemetry();
      cleanups.push(() => w.shutdown());
      const queue = await newQueue();
      const receiver = instrumentedReceiver(w, queue, detail);
      let ran = 0;
      receiver.on('message.failed', function recordFailure() {
        ran++;
      });
      receiver.on('message.failed', function alertOps() {
        ran++;
        throw Object.assign(new Error('pager down'), { code: 'PAGER_DOWN' });
      });
      closing(await createWorker(receiver, boss, { queue, pollingIntervalSeconds: 0.5, logger: quiet }));

      const d = createTestDelivery('message.failed', { secret });
      expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
      await waitFor(() => w.spans().some((s) => s.name === SPAN.job), 'the job span');
      expect(ran).toBe(2);
      const run = w.span(SPAN.job);
      expect(run.status.code).toBe(2);
      expect(run.attributes).toMatchObject({ [ATTR.errorType]: 'handler_failed', [ATTR.handlersFailed]: 1 });
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
      expect(await w.total(METRIC.handlerDuration, { ...type, [ATTR.handlerName]: 'recordFailure' })).toBe(1);
      expect(
        await w.total(METRIC.handlerDuration, {
          ...type,
          [ATTR.handlerName]: 'alertOps',
          [ATTR.errorType]: 'PAGER_DOWN',
        }),
      ).toBe(1);
      expect(await w.total(METRIC.handlersActive, type)).toBe(0);
      // Its only attempt failed: pg-boss keeps it in the failed state.
      await waitFor(
        async () => (await boss.getJobById(queue, jobIdFor(d.event.id)))?.state === 'failed',
        'the job to fail',
      );
    },
    30_000,
  );

  it('a worker built from a handler map has no job span: the handlers run untraced by us', async () => {
    const t = telemetry();
    cleanups.push(() => t.shutdown());
    const queue = await newQueue();
    const receiver = instrumentedReceiver(t, queue);
    receiver.on('message.delivered', () => {});
    const tracer = t.tracerProvider.getTracer('app');
    let ran = 0;
    closing(
      await createWorker(
        {
          'message.delivered': () => {
            ran++;
            tracer.startActiveSpan('send receipt', (span) => span.end());
          },
        },
        boss,
        { queue, store, pollingIntervalSeconds: 0.5, logger: quiet },
      ),
    );

    const d = createTestDelivery('message.delivered', { secret });
    expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
    const { traceId } = t.span(SPAN.delivery).spanContext();
    await waitFor(
      async () => (await boss.getJobById(queue, jobIdFor(d.event.id)))?.state === 'completed',
      'the job to complete',
    );
    expect(ran).toBe(1);
    expect(t.spans().filter((s) => s.name === SPAN.job)).toEqual([]);
    // The app's own span is there, outside any of ours and outside the delivery's trace.
    const own = t.span('send receipt');
    expect(own.parentSpanContext).toBeUndefined();
    expect(own.spanContext().traceId).not.toBe(traceId);
    expect(await t.total(METRIC.handlerDuration, { [ATTR.eventType]: 'message.delivered' })).toBe(0);
  }, 30_000);
});
