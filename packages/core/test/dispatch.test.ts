import {
  createReceiver,
  createTestDelivery,
  MemoryStore,
  type WebhookHandlerError,
} from '@sms-webhooks/core';
import type { AdapterReceiver } from '@sms-webhooks/core/queue';
import { type DispatchedEvent, DispatchTimeoutError } from '@sms-webhooks/core/queue';
import { describe, expect, it } from 'vitest';
import { brokenStore, captureLogger, deferred, secret } from './helpers.js';

const json = (r: { body: string }) => JSON.parse(r.body);

describe('createReceiver({ dispatch })', () => {
  it('hands a verified, claimed event to dispatch instead of running handlers, and answers 200 after it resolves', async () => {
    const store = new MemoryStore();
    const gate = deferred();
    const dispatched: DispatchedEvent[] = [];
    let ran = 0;
    const receiver = createReceiver({
      secret,
      store,
      logger: captureLogger(),
      dispatch: async (d) => {
        dispatched.push(d);
        await gate.promise;
      },
    });
    receiver.on('message.delivered', () => {
      ran++;
    });
    const d = createTestDelivery('message.delivered', { secret, attempt: 3 });
    let answered = false;
    const pending = receiver.handle({ rawBody: d.body, headers: d.headers }).then((r) => {
      answered = true;
      return r;
    });
    await new Promise((r) => setImmediate(r));
    expect(answered).toBe(false);
    gate.resolve();
    const res = await pending;
    expect([res.status, json(res)]).toEqual([200, { received: true }]);
    await receiver.drain();
    expect(ran).toBe(0);

    expect(dispatched).toHaveLength(1);
    const [one] = dispatched;
    expect(one!.event).toEqual(d.event);
    expect(one!.ctx.attempt).toBe(3);
    expect(one!.ctx.receivedAt).toBeInstanceOf(Date);
    expect(one!.claim?.key).toBe(d.event.id);
    // The claim stays held for the consumer, which completes it with the token.
    expect(await store.claim(d.event.id, 'other', 1000)).toBe('in-flight');
    expect(await store.complete(one!.claim!.key, one!.claim!.token, 60_000)).toBe(true);
    expect(json(await receiver.handle({ rawBody: d.body, headers: d.headers }))).toEqual({
      received: true,
      duplicate: true,
    });
    expect(dispatched).toHaveLength(1);
  });

  it('answers 503 store_unavailable with Retry-After and releases the claim when dispatch rejects', async () => {
    const store = new MemoryStore();
    const logger = captureLogger();
    let fail = true;
    const dispatched: string[] = [];
    const receiver = createReceiver({
      secret,
      store,
      logger,
      dispatch: async ({ event }) => {
        if (fail) throw new Error('connect ECONNREFUSED 127.0.0.1:6390');
        dispatched.push(event.id);
      },
    });
    receiver.on('message.delivered', () => {});
    const d = createTestDelivery('message.delivered', { secret });
    const res = await receiver.handle({ rawBody: d.body, headers: d.headers });
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('30');
    expect(json(res).error.code).toBe('store_unavailable');
    expect(logger.text()).toMatch(/dispatch failed.*ECONNREFUSED/);

    // The service's retry gets through once the queue is back.
    fail = false;
    const retry = await receiver.handle({ rawBody: d.body, headers: d.headers });
    expect(retry.status).toBe(200);
    expect(dispatched).toEqual([d.event.id]);
  });

  it('after a DispatchTimeoutError, keeps the claim until the hand-off settles: kept if it lands, released if it fails', async () => {
    const store = new MemoryStore();
    const logger = captureLogger();
    const handOffs: ReturnType<typeof deferred<void>>[] = [];
    const receiver = createReceiver({
      secret,
      store,
      logger,
      // A queue add that was sent and not answered in time: it may still land.
      dispatch: async () => {
        const handOff = deferred();
        handOffs.push(handOff);
        throw new DispatchTimeoutError('Adding to the queue did not finish within 1000 ms', handOff.promise);
      },
    });
    receiver.on('message.delivered', () => {});
    const send = (d: { body: string; headers: Record<string, string> }) =>
      receiver.handle({ rawBody: d.body, headers: d.headers });

    const lands = createTestDelivery('message.delivered', { secret });
    const first = await send(lands);
    expect([first.status, json(first).error.code]).toEqual([503, 'store_unavailable']);
    // While the add may still land, the retry is told "in flight", not given a claim of its own.
    expect([(await send(lands)).status, handOffs.length]).toEqual([409, 1]);
    handOffs[0]!.resolve();
    await new Promise((r) => setImmediate(r));
    // It landed: the queued event holds the claim, and its consumer completes it.
    expect((await send(lands)).status).toBe(409);
    expect(logger.text()).toMatch(new RegExp(`${lands.event.id} was handed off after its 503`));

    const fails = createTestDelivery('message.delivered', { secret });
    expect((await send(fails)).status).toBe(503);
    expect(await store.claim(fails.event.id, 'probe', 1000)).toBe('in-flight');
    handOffs[1]!.reject(new Error('Connection is closed.'));
    await new Promise((r) => setImmediate(r));
    // It failed for good: the claim is given back for the service's retry.
    expect(await store.claim(fails.event.id, 'probe', 1000)).toBe('claimed');
  });

  it('keeps routing and refusals in core: ignored, bad signature and in-flight never reach dispatch', async () => {
    const dispatched: string[] = [];
    const store = new MemoryStore();
    const receiver = createReceiver({
      secret,
      store,
      logger: captureLogger(),
      dispatch: async ({ event }) => {
        dispatched.push(event.id);
      },
    });
    receiver.on('message.delivered', () => {});
    const ignored = createTestDelivery('sms.completed', { secret });
    expect(json(await receiver.handle({ rawBody: ignored.body, headers: ignored.headers }))).toEqual({
      received: true,
      ignored: true,
    });
    const d = createTestDelivery('message.delivered', { secret });
    expect((await receiver.handle({ rawBody: `${d.body} `, headers: d.headers })).status).toBe(400);
    await store.claim(d.event.id, 'elsewhere', 60_000);
    expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(409);
    expect(dispatched).toEqual([]);
  });

  it("dispatches without a claim when the store is down and onStoreError is 'process'", async () => {
    const dispatched: DispatchedEvent[] = [];
    const receiver = createReceiver({
      secret,
      store: brokenStore(),
      onStoreError: 'process',
      logger: captureLogger(),
      dispatch: async (d) => {
        dispatched.push(d);
      },
    });
    receiver.on('message.delivered', () => {});
    const d = createTestDelivery('message.delivered', { secret });
    expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
    expect(dispatched[0]!.claim).toBeUndefined();
  });

  it('refuses a dispatch that is not a function', () => {
    expect(() => createReceiver({ secret, dispatch: 'queue' as never })).toThrow(
      /`dispatch` must be a function/,
    );
  });
});

describe('receiver.runHandlers', () => {
  it("runs the receiver's handlers for the event's type and onAny, with the given context", async () => {
    const receiver = createReceiver({ secret, logger: captureLogger() });
    const calls: string[] = [];
    receiver.on('message.delivered', (e, ctx) => {
      calls.push(`typed ${e.id} ${ctx.attempt}`);
    });
    receiver.onAny((e) => {
      calls.push(`any ${e.id}`);
    });
    receiver.on('message.failed', () => {
      calls.push('wrong type');
    });
    const { event } = createTestDelivery('message.delivered', { secret });
    await (receiver as AdapterReceiver).runHandlers(event, { attempt: 2 });
    expect(calls.sort()).toEqual([`any ${event.id}`, `typed ${event.id} 2`]);
  });

  it('rejects with a WebhookHandlerError carrying every failure, and does not call onError', async () => {
    const receiver = createReceiver({ secret, logger: captureLogger() });
    const reported: unknown[] = [];
    receiver.onError((e) => reported.push(e));
    receiver.on('message.delivered', () => {
      throw new Error('first');
    });
    receiver.on('message.delivered', async () => {
      throw new Error('second');
    });
    const { event } = createTestDelivery('message.delivered', { secret });
    const error = (await (receiver as AdapterReceiver)
      .runHandlers(event)
      .catch((e) => e)) as WebhookHandlerError;
    expect(error.code).toBe('handler_failed');
    expect(error.errors.map((e: Error) => e.message).sort()).toEqual(['first', 'second']);
    expect(error.event.id).toBe(event.id);
    expect(reported).toEqual([]);
  });

  it('resolves when no handler matches', async () => {
    const receiver = createReceiver({ secret, logger: captureLogger() });
    const { event } = createTestDelivery('sms.completed', { secret });
    await expect((receiver as AdapterReceiver).runHandlers(event)).resolves.toBeUndefined();
  });
});
