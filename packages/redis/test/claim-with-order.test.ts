import { createReceiver, createTestDelivery } from '@sms-webhooks/core';
import { RedisStore } from '@sms-webhooks/redis';
import { type RedisServer, startRedisServer } from '@sms-webhooks/test-helpers/redis-server';
import { Redis } from 'ioredis';
import { captureLogger, runPrefix, secret } from './harness.js';

// `order: true` costs no extra round trip before the answer: the event's claim and its message's are
// one script. Counted at the client: every command the store sends.
let server: RedisServer;
let client: Redis;

beforeAll(async () => {
  server = await startRedisServer();
  client = new Redis(server.url);
});

afterAll(async () => {
  client?.disconnect();
  await server?.stop();
});

it('with order, one command before the answer (as without), and one script per step after', async () => {
  const sent: string[] = [];
  for (const order of [false, true]) {
    const store = new RedisStore({
      prefix: runPrefix('trip'),
      sendCommand: (command, ...args) => {
        sent.push(`${command} ${args[1]}`);
        return client.call(command!, ...args);
      },
    });
    const receiver = createReceiver({ secret, store, order, logger: captureLogger() });
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    receiver.on('message.delivered', () => gate);
    const d = createTestDelivery('message.delivered', {
      secret,
      data: { id: `msg_${order}`, updated_at: '2026-11-26T10:00:00Z' } as never,
    });
    // A first delivery loads the scripts (EVAL after NOSCRIPT); the counted one is the second.
    await receiver.handle({ rawBody: d.body, headers: d.headers });
    release();
    await receiver.drain();
    const next = createTestDelivery('message.delivered', {
      secret,
      data: { id: `msg_${order}`, updated_at: '2026-11-26T10:00:01Z' } as never,
    });
    sent.length = 0;
    const res = await receiver.handle({ rawBody: next.body, headers: next.headers });
    expect(res.status).toBe(200);
    expect(sent, `order ${order}`).toEqual([order ? 'EVALSHA 2' : 'EVALSHA 1']);
    await receiver.drain();
    expect(sent.length, `order ${order}: and after the handler`).toBe(2);
  }
});

it('a stale event is answered stale in that one command, and its redelivery is a duplicate', async () => {
  const store = new RedisStore({ client, clientType: 'ioredis', prefix: runPrefix('stale') });
  const receiver = createReceiver({ secret, store, order: true, logger: captureLogger() });
  receiver.on(['message.sent', 'message.delivered'], () => {});
  const at = (s: number) => new Date(Date.UTC(2026, 10, 26, 10, 0, s)).toISOString();
  const delivered = createTestDelivery('message.delivered', {
    secret,
    data: { id: 'msg_s', updated_at: at(20) } as never,
  });
  const sent = createTestDelivery('message.sent', {
    secret,
    data: { id: 'msg_s', updated_at: at(10) } as never,
  });
  expect((await receiver.handle({ rawBody: delivered.body, headers: delivered.headers })).json).toEqual({
    received: true,
  });
  await receiver.drain();
  expect((await receiver.handle({ rawBody: sent.body, headers: sent.headers })).json).toEqual({
    received: true,
    stale: true,
  });
  expect((await receiver.handle({ rawBody: sent.body, headers: sent.headers })).json).toEqual({
    received: true,
    duplicate: true,
  });
  expect(await store.inspect(sent.event.id)).toMatchObject({ state: 'completed' });
});
