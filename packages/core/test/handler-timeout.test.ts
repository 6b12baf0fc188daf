import {
  type AnyWebhookEvent,
  createReceiver,
  createTestDelivery,
  type EventType,
  type HandlerContext,
  MemoryStore,
  type ReceiverOptions,
  type WebhookHandlerError,
} from '@sms-webhooks/core';
import { type AdapterReceiver, toRunHandlers } from '@sms-webhooks/core/queue';
import { VirtualClock } from '@sms-webhooks/core/testing';
import { OPTIONS_ERROR_CODE } from '@sms-webhooks/internal';
import { describe, expect, it } from 'vitest';
import { captureLogger, secret } from './helpers.js';

const MINUTE = 60_000;

function app(options: Partial<ReceiverOptions> = {}) {
  const clock = new VirtualClock(Date.now());
  const logger = captureLogger();
  const receiver = createReceiver({
    secret,
    order: true,
    clock,
    logger,
    handlerTimeoutMs: MINUTE,
    ...options,
  });
  const send = async (d: { body: string; headers: Record<string, string> }) => {
    const r = await receiver.handle({ rawBody: d.body, headers: d.headers });
    return { status: r.status, json: r.json as Record<string, unknown> };
  };
  const delivery = (type: EventType, message: string, updatedAt: string) =>
    createTestDelivery(type, { secret, data: { id: message, updated_at: updatedAt } as never });
  return { clock, receiver, send, delivery, logger };
}

describe('handlerTimeoutMs: a handler that never settles', () => {
  it("'after-handlers': the run fails at the time-out (500), the signal aborts, the claims are released", async () => {
    const { clock, receiver, send, delivery } = app({ respond: 'after-handlers' });
    const signals: AbortSignal[] = [];
    const ran: string[] = [];
    receiver.on('message.sent', (_event: AnyWebhookEvent, ctx: HandlerContext) => {
      signals.push(ctx.signal!);
      return new Promise<void>(() => {}); // a query with no time-out of its own
    });
    receiver.on('message.delivered', (event) => void ran.push(event.type));
    const sent = delivery('message.sent', 'msg_hung', '2026-11-26T10:00:01Z');
    const answer = send(sent);
    await clock.advance(MINUTE - 1);
    expect(signals[0]?.aborted).toBe(false);
    await clock.advance(1);
    expect(await answer).toMatchObject({ status: 500, json: { error: { code: 'handler_failed' } } });
    expect(signals[0]?.aborted).toBe(true);
    expect(signals[0]?.reason).toMatchObject({ name: 'TimeoutError', code: 'ERR_SMS_HANDLER_TIMEOUT' });
    // The message's later status goes through, and the hung event itself is free for the service's retry.
    const delivered = delivery('message.delivered', 'msg_hung', '2026-11-26T10:00:02Z');
    expect(await send(delivered)).toEqual({ status: 200, json: { received: true } });
    expect(ran).toEqual(['message.delivered']);
    const retry = send(sent);
    expect(await retry).toEqual({ status: 200, json: { received: true, stale: true } });
  });

  it("'immediately': each attempt times out, the last reaches onError, and no lease is renewed after it", async () => {
    const store = new MemoryStore();
    const renewed: string[] = [];
    const renew = store.renew.bind(store);
    store.renew = (key, token, leaseMs) => {
      renewed.push(key);
      return renew(key, token, leaseMs);
    };
    const { clock, receiver, send, delivery } = app({
      store,
      leaseMs: 30_000,
      retry: { attempts: 2, backoffMs: 1_000 },
    });
    const errors: WebhookHandlerError[] = [];
    receiver.onError((error) => void errors.push(error));
    let runs = 0;
    receiver.on('message.sent', () => {
      runs++;
      return new Promise<void>(() => {});
    });
    const sent = delivery('message.sent', 'msg_hung_2', '2026-11-26T10:00:01Z');
    expect(await send(sent)).toEqual({ status: 200, json: { received: true } });
    await clock.advance(2 * MINUTE + 1_000);
    expect(runs).toBe(2);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.errors[0]).toMatchObject({ name: 'TimeoutError' });
    expect(errors[0]!.message).toContain('did not settle within 60000 ms');
    // Nothing is held any more: no claim is renewed over a whole lease, the renewal timer stops, and a
    // redelivery runs the event again.
    expect(renewed.length).toBeGreaterThan(0); // while the handlers ran
    renewed.length = 0;
    await clock.advance(MINUTE);
    expect(renewed).toEqual([]);
    expect(clock.pendingTimers).toBe(0);
    const again = await receiver.handle({ rawBody: sent.body, headers: { ...sent.headers } });
    expect(again.status).toBe(200);
    await clock.advance(1);
    expect(runs).toBe(3);
  });

  it('ctx keeps what the delivery gave, and its signal is read from ctx itself (a spread copy lacks it)', async () => {
    const { receiver, send, delivery } = app({ respond: 'after-handlers' });
    const seen: { keys: string[]; copy: Record<string, unknown>; signal: unknown; again: unknown }[] = [];
    receiver.on('message.sent', (_event: AnyWebhookEvent, ctx: HandlerContext) => {
      const copy = { ...ctx } as Record<string, unknown>;
      seen.push({ keys: Object.keys(ctx).sort(), copy, signal: ctx.signal, again: ctx.signal });
    });
    const sent = delivery('message.sent', 'msg_ctx', '2026-11-26T10:00:01Z');
    expect((await send(sent)).status).toBe(200);
    const [run] = seen;
    expect(run?.keys).toEqual(['attempt', 'claim', 'order', 'receivedAt', 'secretIndex']);
    expect(run?.copy).toMatchObject({ attempt: 1, secretIndex: 0, order: { key: 'message:msg_ctx' } });
    expect(run?.copy.receivedAt).toBeInstanceOf(Date);
    expect('signal' in (run?.copy ?? {})).toBe(false);
    expect(run?.signal).toBeInstanceOf(AbortSignal);
    expect(run?.again).toBe(run?.signal); // one controller per run
  });

  it('false turns it off; anything but a positive integer or false is refused at start-up', async () => {
    const { clock, receiver, send, delivery } = app({ respond: 'after-handlers', handlerTimeoutMs: false });
    receiver.on('message.sent', () => new Promise<void>(() => {}));
    let settled = false;
    void send(delivery('message.sent', 'msg_slow', '2026-11-26T10:00:01Z')).then(() => {
      settled = true;
    });
    await clock.advance(60 * MINUTE);
    expect(settled).toBe(false);
    for (const bad of [0, -1, 1.5, Number.POSITIVE_INFINITY, '60000', true]) {
      expect(() => createReceiver({ secret, handlerTimeoutMs: bad as never })).toThrow(
        expect.objectContaining({
          code: OPTIONS_ERROR_CODE,
          message: expect.stringContaining('handlerTimeoutMs'),
        }),
      );
    }
  });
});

describe('handlerTimeoutMs on a queue worker', () => {
  /** Watches a promise from the start (no unhandled rejection); `state()` says what it has done so far. */
  const watch = (p: Promise<unknown>) => {
    let state: unknown = 'pending';
    p.then(
      () => {
        state = 'resolved';
      },
      (error: unknown) => {
        state = error;
      },
    );
    return () => new Promise((resolve) => setImmediate(() => resolve(state)));
  };
  const event = createTestDelivery('message.sent', { secret }).event;

  it("a receiver's runHandlers (the worker's run) fails at its time-out and aborts ctx.signal", async () => {
    const { clock, receiver } = app({ handlerTimeoutMs: MINUTE, order: undefined });
    const signals: AbortSignal[] = [];
    receiver.on('message.sent', (_event: AnyWebhookEvent, ctx: HandlerContext) => {
      signals.push(ctx.signal!);
      return new Promise<void>(() => {});
    });
    const run = watch((receiver as AdapterReceiver).runHandlers(event, { attempt: 2 }));
    await clock.advance(MINUTE - 1);
    expect(await run()).toBe('pending');
    expect(signals[0]?.aborted).toBe(false);
    await clock.advance(1);
    const failure = (await run()) as WebhookHandlerError;
    expect(failure).toMatchObject({ code: 'handler_failed', event: { id: event.id } });
    expect(failure.errors[0]).toMatchObject({ name: 'TimeoutError', code: 'ERR_SMS_HANDLER_TIMEOUT' });
    expect(signals[0]?.aborted).toBe(true);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a map of handlers runs under the worker option: 2 min by default, its own value, or none with false', async () => {
    const clock = new VirtualClock(Date.now());
    const hang = () => new Promise<void>(() => {});
    const ctx = { receivedAt: new Date(clock.now()) };
    const byDefault = watch(toRunHandlers({ 'message.sent': hang }, 'test-owner', { clock })(event, ctx));
    const own = watch(
      toRunHandlers({ '*': [hang, () => {}] }, 'test-owner', { handlerTimeoutMs: 5_000, clock })(event, ctx),
    );
    const none = watch(
      toRunHandlers({ 'message.sent': hang }, 'test-owner', { handlerTimeoutMs: false, clock })(event, ctx),
    );
    await clock.advance(5_000);
    expect(await own()).toMatchObject({ code: 'handler_failed' });
    expect(await byDefault()).toBe('pending');
    await clock.advance(2 * MINUTE - 5_000);
    expect(await byDefault()).toMatchObject({ errors: [{ code: 'ERR_SMS_HANDLER_TIMEOUT' }] });
    await clock.advance(60 * MINUTE);
    expect(await none()).toBe('pending');
  });

  it('the worker option is refused at start-up when it is not a positive integer or false, or comes with a receiver', () => {
    for (const bad of [0, -1, 1.5, '60000', true]) {
      expect(() => toRunHandlers({}, 'test-owner', { handlerTimeoutMs: bad as never })).toThrow(
        expect.objectContaining({
          code: OPTIONS_ERROR_CODE,
          message: expect.stringContaining('handlerTimeoutMs'),
        }),
      );
    }
    const receiver = createReceiver({ secret });
    expect(() => toRunHandlers(receiver, 'test-owner', { handlerTimeoutMs: 1_000 })).toThrow(
      expect.objectContaining({ message: expect.stringContaining('createReceiver({ handlerTimeoutMs })') }),
    );
  });
});
