import { createReceiver, createTestDelivery, type DedupeStore, MemoryStore } from '@sms-webhooks/core';
import type { ClaimResult } from '@sms-webhooks/core/store';
import { ATTR, METRIC, otelInstrumentation, SPAN } from '@sms-webhooks/otel';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Telemetry, telemetry } from './telemetry.js';

const secret = 'whsec_otel_detail_tests_0123456789abcdef';
const quiet = { warn() {}, error() {} };

/** A MemoryStore that answers on a later turn, as a networked store does, or as told. */
class LaterStore implements DedupeStore {
  readonly localKeys = true;
  readonly #memory = new MemoryStore();
  claimError: Error | undefined;
  completeAnswer: boolean | undefined;

  async claim(key: string, token: string, leaseMs: number): Promise<ClaimResult> {
    await new Promise((resolve) => setTimeout(resolve, 2));
    if (this.claimError) throw this.claimError;
    return this.#memory.claim(key, token, leaseMs);
  }
  async complete(key: string, token: string, retainMs: number): Promise<boolean> {
    return this.completeAnswer ?? this.#memory.complete(key, token, retainMs);
  }
  async release(key: string, token: string): Promise<boolean> {
    return this.#memory.release(key, token);
  }
}

describe('@sms-webhooks/otel: what the default records, and what it leaves to detail: full', () => {
  let t: Telemetry;
  afterEach(() => t.shutdown());

  function receiverWith(store: DedupeStore, onStoreError: 'reject' | 'process' = 'reject') {
    t = telemetry();
    const receiver = createReceiver({
      secret,
      store,
      onStoreError,
      logger: quiet,
      instrumentation: otelInstrumentation({
        tracerProvider: t.tracerProvider,
        meterProvider: t.meterProvider,
      }),
    });
    receiver.on('message.delivered', () => {});
    return receiver;
  }

  async function deliver(receiver: ReturnType<typeof receiverWith>): Promise<number> {
    const d = createTestDelivery('message.delivered', { secret });
    const res = await receiver.handle({ rawBody: d.body, headers: d.headers });
    await receiver.drain();
    return res.status;
  }

  it('an asynchronous store: its latency by operation and result, still no event', async () => {
    const receiver = receiverWith(new LaterStore());
    expect(await deliver(receiver)).toBe(200);
    expect(t.span(SPAN.delivery).events).toEqual([]);
    const claims = await t.points(METRIC.storeDuration);
    expect(claims.map((p) => p.attributes)).toEqual([
      { [ATTR.storeOperation]: 'claim', [ATTR.store]: 'LaterStore', [ATTR.storeResult]: 'claimed' },
      { [ATTR.storeOperation]: 'complete', [ATTR.store]: 'LaterStore', [ATTR.storeResult]: 'done' },
    ]);
    // The claim waited a 2 ms timer: the histogram saw it.
    expect(await t.total(METRIC.storeDuration, { [ATTR.storeOperation]: 'claim' })).toBe(1);
    const claim = claims[0]!.value as { sum: number };
    expect(claim.sum).toBeGreaterThan(0.001);
  });

  it('a claim no longer held when completing: a `sms_webhooks.complete` event with `not_held`', async () => {
    const store = new LaterStore();
    store.completeAnswer = false;
    const receiver = receiverWith(store);
    expect(await deliver(receiver)).toBe(200);
    const delivery = t.span(SPAN.delivery);
    expect(delivery.events.map((e) => e.name)).toEqual(['sms_webhooks.complete']);
    expect(delivery.events[0]!.attributes).toMatchObject({ [ATTR.storeResult]: 'not_held' });
    expect(delivery.events[0]!.attributes![ATTR.storeDuration]).toBeTypeOf('number');
  });

  it('a store that fails the claim: a `sms_webhooks.claim` event with its error type, the exception, 503', async () => {
    const store = new LaterStore();
    store.claimError = Object.assign(new Error('connection reset'), { code: 'ECONNRESET' });
    const receiver = receiverWith(store);
    expect(await deliver(receiver)).toBe(503);
    const delivery = t.span(SPAN.delivery);
    expect(delivery.events.map((e) => e.name)).toEqual(['sms_webhooks.claim', 'exception']);
    expect(delivery.events[0]!.attributes).toMatchObject({ [ATTR.errorType]: 'ECONNRESET' });
    expect(delivery.attributes).toMatchObject({
      [ATTR.outcome]: 'failed',
      [ATTR.errorType]: 'store_unavailable',
    });
    expect(delivery.status.code).toBe(2);
    expect(
      await t.total(METRIC.storeDuration, { [ATTR.storeOperation]: 'claim', [ATTR.errorType]: 'ECONNRESET' }),
    ).toBe(1);
  });

  it('counts each answer under one attribute set, built once: many deliveries, one point per outcome', async () => {
    const receiver = receiverWith(new MemoryStore());
    for (let i = 0; i < 5; i++) expect(await deliver(receiver)).toBe(200);
    const d = createTestDelivery('message.delivered', { secret });
    for (let i = 0; i < 2; i++) {
      await receiver.handle({ rawBody: d.body, headers: d.headers });
      await receiver.drain();
    }
    const points = await t.points(METRIC.deliveries);
    expect(points.map((p) => [p.attributes[ATTR.outcome], p.value])).toEqual([
      ['received', 6],
      ['duplicate', 1],
    ]);
    const answers = await t.points(METRIC.answerDuration);
    expect(answers.map((p) => [p.attributes[ATTR.outcome], (p.value as { count: number }).count])).toEqual([
      ['received', 6],
      ['duplicate', 1],
    ]);
    // The counter has the status; the histogram leaves it out (it follows from outcome and code).
    expect(points.map((p) => p.attributes[ATTR.httpStatus])).toEqual([200, 200]);
    expect(answers.map((p) => Object.keys(p.attributes).sort())).toEqual([
      [ATTR.eventType, ATTR.outcome],
      [ATTR.eventType, ATTR.outcome],
    ]);
    // A refusal's point keeps its code.
    await receiver.handle({ rawBody: d.body, headers: { ...d.headers, 'x-service-signature': 't=1,v1=00' } });
    const refused = (await t.points(METRIC.answerDuration)).filter(
      (p) => p.attributes[ATTR.outcome] === 'refused',
    );
    expect(refused.map((p) => p.attributes)).toEqual([
      { [ATTR.outcome]: 'refused', [ATTR.errorType]: 'signature_malformed' },
    ]);
  });

  it('counts an event answered stale (`order`) under the outcome stale, apart from received', async () => {
    t = telemetry();
    const receiver = createReceiver({
      secret,
      logger: quiet,
      order: true,
      instrumentation: otelInstrumentation({
        tracerProvider: t.tracerProvider,
        meterProvider: t.meterProvider,
      }),
    });
    receiver.on(['message.sent', 'message.delivered'], () => {});
    const status = (type: 'message.sent' | 'message.delivered', updated_at: string) =>
      createTestDelivery(type, { secret, data: { id: 'msg_otel', updated_at } });
    for (const d of [
      status('message.delivered', '2026-11-26T10:00:02Z'),
      status('message.sent', '2026-11-26T10:00:01Z'),
    ]) {
      expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
      await receiver.drain();
    }
    const points = await t.points(METRIC.deliveries);
    expect(points.map((p) => [p.attributes[ATTR.outcome], p.attributes[ATTR.eventType], p.value])).toEqual([
      ['received', 'message.delivered', 1],
      ['stale', 'message.sent', 1],
    ]);
    expect(
      t.spans().find((s) => s.name === SPAN.delivery && s.attributes[ATTR.eventType] === 'message.sent')
        ?.attributes[ATTR.outcome],
    ).toBe('stale');
  });

  it('counts a payload that fails a handler schema under the outcome invalid with its code, not failed', async () => {
    t = telemetry();
    const receiver = createReceiver({
      secret,
      logger: quiet,
      instrumentation: otelInstrumentation({
        tracerProvider: t.tracerProvider,
        meterProvider: t.meterProvider,
      }),
    });
    const delivered = z.looseObject({ updated_at: z.iso.datetime() });
    receiver.on('message.delivered', delivered, () => {});
    const bad = createTestDelivery('message.delivered', { secret, data: { updated_at: 'yesterday' } });
    expect((await receiver.handle({ rawBody: bad.body, headers: bad.headers })).status).toBe(422);
    const good = createTestDelivery('message.delivered', { secret });
    expect((await receiver.handle({ rawBody: good.body, headers: good.headers })).status).toBe(200);
    await receiver.drain();
    const points = await t.points(METRIC.deliveries);
    const byOutcome = (outcome: string) => points.filter((p) => p.attributes[ATTR.outcome] === outcome);
    expect(points).toHaveLength(2);
    expect(byOutcome('received').map((p) => p.value)).toEqual([1]);
    expect(byOutcome('failed')).toEqual([]);
    expect(byOutcome('invalid').map((p) => [p.attributes, p.value])).toEqual([
      [
        {
          [ATTR.outcome]: 'invalid',
          [ATTR.errorType]: 'payload_schema_mismatch',
          [ATTR.httpStatus]: 422,
          [ATTR.eventType]: 'message.delivered',
        },
        1,
      ],
    ]);
    const span = t
      .spans()
      .find((s) => s.name === SPAN.delivery && s.attributes[ATTR.errorType] !== undefined);
    expect(span?.attributes).toMatchObject({
      [ATTR.outcome]: 'invalid',
      [ATTR.errorType]: 'payload_schema_mismatch',
      [ATTR.messageId]: bad.event.id,
    });
    // A 4xx is the sender's: the span's status stays unset, as for the other refusals.
    expect(span?.status.code).toBe(0);
  });

  it("refuses a `detail` that is neither 'delivery' nor 'full', saying what it takes", () => {
    expect(() => otelInstrumentation({ detail: 'steps' as never })).toThrow(
      /`detail` is 'delivery' \(the default\) or 'full', not "steps"/,
    );
  });
});
