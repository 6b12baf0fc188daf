import {
  type AnyWebhookEvent,
  createReceiver,
  createTestDelivery,
  type EventType,
  MemoryStore,
  type ReceiverOptions,
  signPayload,
} from '@sms-webhooks/core';
import { describe, expect, it } from 'vitest';
import { captureLogger, deferred, secret } from './helpers.js';

const T0 = Date.parse('2026-11-26T10:00:00.000Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

function delivery(type: EventType, message: string, updatedAt: string, id?: string) {
  return createTestDelivery(type, { secret, id, data: { id: message, updated_at: updatedAt } as never });
}

function app(options: Partial<ReceiverOptions> = {}) {
  const logger = captureLogger();
  const receiver = createReceiver({ secret, order: true, respond: 'after-handlers', logger, ...options });
  const status = new Map<string, string>();
  const seen: string[] = [];
  const handler = (event: AnyWebhookEvent) => {
    const data = event.data as { id: string };
    seen.push(`${event.type} ${data.id}`);
    status.set(data.id, event.type);
  };
  receiver.on(['message.sent', 'message.delivered', 'message.failed'], handler);
  const send = async (d: ReturnType<typeof delivery>) => {
    const r = await receiver.handle({ rawBody: d.body, headers: d.headers });
    return { status: r.status, json: r.json as Record<string, unknown> };
  };
  return { receiver, status, seen, send, logger };
}

describe('order: true (events out of order)', () => {
  it('a message.sent arriving after its message.delivered is answered stale and never regresses the status', async () => {
    const { receiver, status, seen, send } = app();
    const stale: string[] = [];
    receiver.onStale((event, object) => stale.push(`${event.id} ${object.key}`));
    const delivered = delivery('message.delivered', 'msg_1', at(20));
    const sent = delivery('message.sent', 'msg_1', at(10));
    expect(await send(delivered)).toEqual({ status: 200, json: { received: true } });
    expect(await send(sent)).toEqual({ status: 200, json: { received: true, stale: true } });
    expect(status.get('msg_1')).toBe('message.delivered');
    expect(seen).toEqual(['message.delivered msg_1']);
    expect(stale).toEqual([`${sent.event.id} message:msg_1`]);
    // The stale event is done for good: its redelivery is a duplicate.
    await new Promise((r) => setTimeout(r, 0));
    expect(await send(sent)).toEqual({ status: 200, json: { received: true, duplicate: true } });
  });

  it('in order, each newer status is handled', async () => {
    const { status, seen, send } = app();
    for (const [type, s] of [
      ['message.sent', 1],
      ['message.delivered', 2],
    ] as const) {
      expect((await send(delivery(type, 'msg_2', at(s)))).json).toEqual({ received: true });
    }
    expect(seen).toEqual(['message.sent msg_2', 'message.delivered msg_2']);
    expect(status.get('msg_2')).toBe('message.delivered');
  });

  it('two events of one message never run at once: the later gets 409 in_flight, then runs on retry', async () => {
    const logger = captureLogger();
    const receiver = createReceiver({ secret, order: true, respond: 'after-handlers', logger });
    const gate = deferred<void>();
    const ran: string[] = [];
    receiver.on('message.sent', async () => {
      ran.push('sent');
      await gate.promise;
    });
    receiver.on('message.delivered', () => {
      ran.push('delivered');
    });
    const sent = delivery('message.sent', 'msg_3', at(1));
    const delivered = delivery('message.delivered', 'msg_3', at(2));
    const first = receiver.handle({ rawBody: sent.body, headers: sent.headers });
    await new Promise((r) => setTimeout(r, 10));
    const second = await receiver.handle({ rawBody: delivered.body, headers: delivered.headers });
    expect(second.status).toBe(409);
    expect((second.json as { error: { code: string } }).error.code).toBe('in_flight');
    gate.resolve();
    expect((await first).status).toBe(200);
    await new Promise((r) => setTimeout(r, 0));
    const retried = await receiver.handle({ rawBody: delivered.body, headers: delivered.headers });
    expect(retried.json).toEqual({ received: true });
    expect(ran).toEqual(['sent', 'delivered']);
  });

  it('a failed run leaves the version where it was: an older event is still handled after it', async () => {
    const logger = captureLogger();
    const receiver = createReceiver({ secret, order: true, respond: 'after-handlers', logger });
    const ran: string[] = [];
    receiver.on('message.delivered', () => {
      throw new Error('database blip');
    });
    receiver.on('message.sent', (e) => {
      ran.push(e.type);
    });
    const delivered = delivery('message.delivered', 'msg_4', at(20));
    expect((await receiver.handle({ rawBody: delivered.body, headers: delivered.headers })).status).toBe(500);
    const sent = delivery('message.sent', 'msg_4', at(10));
    expect((await receiver.handle({ rawBody: sent.body, headers: sent.headers })).json).toEqual({
      received: true,
    });
    expect(ran).toEqual(['message.sent']);
  });

  it('ties on updated_at are broken by the status (sent before delivered and failed) alone; created_at and the id never decide', async () => {
    const { seen, send } = app();
    const signed = (id: string, type: EventType, createdAt: string) => {
      const template = delivery(type, 'msg_5', at(5), id);
      const event = { ...template.event, created_at: createdAt };
      const body = JSON.stringify(event);
      return {
        ...template,
        body,
        headers: { ...template.headers, 'x-service-signature': signPayload(body, secret) },
      };
    };
    expect((await send(signed('evt_m', 'message.delivered', at(1)))).json).toEqual({ received: true });
    // Same updated_at, an earlier status: older, whatever its created_at and id.
    expect((await send(signed('evt_z', 'message.sent', at(0)))).json).toEqual({
      received: true,
      stale: true,
    });
    // A later created_at does not make an earlier status newer.
    expect((await send(signed('evt_y', 'message.sent', at(2)))).json).toEqual({
      received: true,
      stale: true,
    });
    // Same updated_at and status rank: a tie, so it runs, whether created earlier or with a smaller id.
    expect((await send(signed('evt_a', 'message.failed', at(0)))).json).toEqual({ received: true });
    expect(seen).toEqual(['message.delivered msg_5', 'message.failed msg_5']);
  });

  it('an event without a usable updated_at is handled without ordering, with one warning', async () => {
    const { seen, send, logger } = app();
    for (let i = 0; i < 3; i++) {
      expect((await send(delivery('message.sent', 'msg_6', 'yesterday'))).json).toEqual({ received: true });
    }
    expect(seen).toHaveLength(3);
    expect(logger.lines.filter((l) => l.includes('handled without ordering'))).toHaveLength(1);
  });

  it('a function gives the key and version of any event type', async () => {
    const receiver = createReceiver({
      secret,
      respond: 'after-handlers',
      logger: captureLogger(),
      order: (event) =>
        event.type === 'sms.completed'
          ? { key: `sms:${(event.data as { id: string }).id}`, version: (event.data as { seq: number }).seq }
          : undefined,
    });
    const ran: number[] = [];
    receiver.on('sms.completed', (e) => {
      ran.push((e.data as unknown as { seq: number }).seq);
    });
    const send = (seq: number) => {
      const d = createTestDelivery('sms.completed', { secret, data: { id: 'sms_1', seq } as never });
      return receiver.handle({ rawBody: d.body, headers: d.headers });
    };
    expect((await send(2)).json).toEqual({ received: true });
    expect((await send(1)).json).toEqual({ received: true, stale: true });
    expect((await send(3)).json).toEqual({ received: true });
    expect(ran).toEqual([2, 3]);
  });

  it('with respond: immediately, the version advances once the background run succeeds', async () => {
    const receiver = createReceiver({ secret, order: true, logger: captureLogger() });
    const ran: string[] = [];
    receiver.on(['message.sent', 'message.delivered'], (e) => {
      ran.push(e.type);
    });
    const delivered = delivery('message.delivered', 'msg_7', at(2));
    await receiver.handle({ rawBody: delivered.body, headers: delivered.headers });
    await receiver.drain();
    const sent = delivery('message.sent', 'msg_7', at(1));
    expect((await receiver.handle({ rawBody: sent.body, headers: sent.headers })).json).toEqual({
      received: true,
      stale: true,
    });
    expect(ran).toEqual(['message.delivered']);
  });

  it('costs no extra store call before the answer: one claimWithOrder in place of claim', async () => {
    const calls: string[] = [];
    const counting = (hide?: string) => {
      const inner = new MemoryStore();
      return new Proxy(inner, {
        has: (target, name) => name !== hide && Reflect.has(target, name),
        get(target, name) {
          const value = Reflect.get(target, name, target);
          if (typeof value !== 'function' || name === hide) return name === hide ? undefined : value;
          return (...args: unknown[]) => {
            calls.push(String(name));
            return value.apply(target, args);
          };
        },
      });
    };
    for (const order of [false, true]) {
      const receiver = createReceiver({ secret, order, store: counting(), logger: captureLogger() });
      receiver.on('message.delivered', () => {});
      calls.length = 0;
      const d = delivery('message.delivered', 'msg_8', at(1));
      await receiver.handle({ rawBody: d.body, headers: d.headers });
      expect(calls, `order ${order}`).toEqual(order ? ['claimWithOrder'] : ['claim']);
      await receiver.drain();
      expect(calls.slice(1)).toEqual(order ? ['completeWithOrder'] : ['complete']);
    }
    // A store without claimWithOrder (a third party's): the two calls, one after the other.
    const receiver = createReceiver({
      secret,
      order: true,
      store: counting('claimWithOrder'),
      logger: captureLogger(),
    });
    receiver.on('message.delivered', () => {});
    calls.length = 0;
    const d = delivery('message.delivered', 'msg_9', at(1));
    await receiver.handle({ rawBody: d.body, headers: d.headers });
    expect(calls).toEqual(['claim', 'claimOrder']);
    await receiver.drain();
  });

  it('a store without claimWithOrder keeps every answer: stale, busy 409, duplicate', async () => {
    const inner = new MemoryStore();
    const { claimWithOrder: _, ...rest } = Object.fromEntries(
      [
        'localKeys',
        'claim',
        'complete',
        'release',
        'renew',
        'claimOrder',
        'completeOrder',
        'releaseOrder',
        'renewOrder',
      ].map((m) => {
        const value = (inner as unknown as Record<string, unknown>)[m];
        return [m, typeof value === 'function' ? value.bind(inner) : value];
      }),
    );
    const gate = deferred();
    const { receiver, send } = app({ store: rest as never, respond: 'immediately' });
    receiver.on('message.failed', () => gate.promise);
    const failed = delivery('message.failed', 'msg_10', at(30));
    expect(await send(failed)).toEqual({ status: 200, json: { received: true } });
    const delivered = delivery('message.delivered', 'msg_10', at(40));
    expect((await send(delivered)).status).toBe(409);
    gate.resolve();
    await receiver.drain();
    expect(await send(delivery('message.sent', 'msg_10', at(10)))).toEqual({
      status: 200,
      json: { received: true, stale: true },
    });
    expect(await send(failed)).toEqual({ status: 200, json: { received: true, duplicate: true } });
    expect(await send(delivered)).toEqual({ status: 200, json: { received: true } });
  });

  it('fails at start-up: a store without the order methods, a bad option, onStale without order', () => {
    const bare = new MemoryStore();
    const store = {
      localKeys: true,
      claim: bare.claim.bind(bare),
      complete: bare.complete.bind(bare),
      release: bare.release.bind(bare),
    };
    expect(() => createReceiver({ secret, order: true, store })).toThrow(
      /`order` needs a store that keeps each object's version: MemoryStore, RedisStore or PostgresStore/,
    );
    expect(() => createReceiver({ secret, order: 'yes' as never })).toThrow(
      /`order` must be true .* or a function .*got the string "yes"/,
    );
    expect(() => createReceiver({ secret }).onStale(() => {})).toThrow(/onStale\(\) needs ordering/);
    // A dispatch whose worker does not apply `order` (your own, RabbitMQ's): the events would run unordered.
    expect(() => createReceiver({ secret, order: true, dispatch: async () => {} })).toThrow(
      expect.objectContaining({
        code: 'ERR_SMS_OPTIONS',
        message: expect.stringMatching(/`order` with `dispatch` needs a hand-off whose worker applies it/),
      }),
    );
    // One that says its worker does (the BullMQ and pg-boss `enqueueTo`) is taken.
    const ordering = Object.assign(async () => {}, { appliesOrder: true });
    expect(() => createReceiver({ secret, order: true, dispatch: ordering })).not.toThrow();
  });
});
