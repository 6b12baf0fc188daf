import { createReceiver, createTestDelivery, MemoryStore } from '@sms-webhooks/core';
import { describe, expect, it } from 'vitest';
import { captureLogger, deferred, secret } from './helpers.js';

describe('handle({ waitUntil })', () => {
  it('is given the background run of an accepted event, which settles once the handler is done', async () => {
    const gate = deferred();
    let finished = false;
    const receiver = createReceiver({ secret, logger: captureLogger() });
    receiver.on('message.delivered', async () => {
      await gate.promise;
      finished = true;
    });
    const kept: Promise<unknown>[] = [];
    const d = createTestDelivery('message.delivered', { secret });
    const res = await receiver.handle({
      rawBody: d.body,
      headers: d.headers,
      waitUntil: (p) => kept.push(p),
    });

    expect(res.status).toBe(200);
    expect(kept).toHaveLength(1);
    expect(finished).toBe(false);
    gate.resolve();
    await kept[0];
    expect(finished).toBe(true);
  });

  it('settles (never rejects) after the dedupe record is written, even when the handler fails', async () => {
    const store = new MemoryStore();
    const logger = captureLogger();
    const receiver = createReceiver({ secret, store, logger });
    receiver.on('message.delivered', () => {
      throw new Error('boom');
    });
    const kept: Promise<unknown>[] = [];
    const d = createTestDelivery('message.delivered', { secret });
    await receiver.handle({ rawBody: d.body, headers: d.headers, waitUntil: (p) => kept.push(p) });
    await expect(kept[0]).resolves.toBeDefined();
    expect(logger.text()).toMatch(/boom/);
    // Released, not completed: the event can be claimed again.
    expect(await store.claim(d.event.id, 'another', 1000)).toBe('claimed');
  });

  it('is not called for refused, ignored or duplicate deliveries, nor in after-handlers mode', async () => {
    const calls: unknown[] = [];
    const waitUntil = (p: Promise<unknown>) => calls.push(p);
    const receiver = createReceiver({ secret, logger: captureLogger() });
    receiver.on('message.delivered', () => {});
    const d = createTestDelivery('message.delivered', { secret });
    await receiver.handle({ rawBody: d.body, headers: d.headers, waitUntil });
    await receiver.drain();
    expect(calls).toHaveLength(1);

    const refused = await receiver.handle({ rawBody: `${d.body} `, headers: d.headers, waitUntil });
    const ignoredDelivery = createTestDelivery('sms.completed', { secret });
    const ignored = await receiver.handle({
      rawBody: ignoredDelivery.body,
      headers: ignoredDelivery.headers,
      waitUntil,
    });
    const duplicate = await receiver.handle({ rawBody: d.body, headers: d.headers, waitUntil });
    expect([refused.status, ignored.body, duplicate.body]).toEqual([
      400,
      '{"received":true,"ignored":true}',
      '{"received":true,"duplicate":true}',
    ]);

    const after = createReceiver({ secret, respond: 'after-handlers', logger: captureLogger() });
    after.on('message.delivered', () => {});
    const d2 = createTestDelivery('message.delivered', { secret });
    expect((await after.handle({ rawBody: d2.body, headers: d2.headers, waitUntil })).status).toBe(200);
    expect(calls).toHaveLength(1);
  });

  it('a waitUntil that throws is logged and the event is still accepted and handled', async () => {
    const logger = captureLogger();
    const handled = deferred();
    const receiver = createReceiver({ secret, logger });
    receiver.on('message.delivered', () => handled.resolve());
    const d = createTestDelivery('message.delivered', { secret });
    const res = await receiver.handle({
      rawBody: d.body,
      headers: d.headers,
      waitUntil: () => {
        throw new Error('waitUntil called after the response');
      },
    });
    expect(res.status).toBe(200);
    await handled.promise;
    expect(logger.text()).toMatch(/waitUntil failed for evt_/);
  });
});
