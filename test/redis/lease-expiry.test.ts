import { createReceiver, createTestDelivery } from '@sms-webhooks/core';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { type Connected, connect } from './clients.js';
import { captureLogger, counter, secret, send, sleep } from './harness.js';

let server: RedisServer;
let a: Connected;
let b: Connected;
const HOUR = 3_600_000;

beforeAll(async () => {
  server = await startRedisServer();
  [a, b] = await Promise.all([connect('ioredis', server.url), connect('node-redis v5', server.url)]);
});

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await server?.stop();
});

describe('lease expiry', () => {
  it('a dead claim frees up after leaseMs; the old owner can then change nothing', async () => {
    const prefix = `lease-${Date.now()}:`;
    const dead = a.store({ prefix });
    const next = b.store({ prefix });
    const id = 'evt_lease_store';
    const key = `${prefix}id:${id}`;

    expect(await dead.claim(id, 'dead', 200)).toBe('claimed');
    expect(await next.claim(id, 'next', HOUR)).toBe('in-flight');
    await sleep(300);
    expect(await next.claim(id, 'next', HOUR)).toBe('claimed');

    expect(await dead.complete(id, 'dead', HOUR)).toBe(false);
    expect(await dead.release(id, 'dead')).toBe(false);
    expect(await b.command('GET', key)).toBe('p:next');
    expect(Number(await b.command('PTTL', key))).toBeGreaterThan(HOUR - 60_000);

    expect(await next.complete(id, 'next', HOUR)).toBe(true);
    expect(await dead.complete(id, 'dead', HOUR)).toBe(false);
    expect(await b.command('GET', key)).toBe('c:next');
  });

  it('an instance whose handler hangs past the lease loses the event to a redelivery elsewhere', async () => {
    const prefix = `lease-recv-${Date.now()}:`;
    const options = { secret, respond: 'after-handlers', leaseMs: 300, logger: captureLogger() } as const;
    const stuck = createReceiver({ ...options, store: a.store({ prefix }) });
    const healthy = createReceiver({ ...options, store: b.store({ prefix }) });
    const runs = counter();
    let unstick!: () => void;
    stuck.on('message.sent', async (event) => {
      runs.add(`stuck:${event.id}`);
      await new Promise<void>((resolve) => {
        unstick = resolve;
      });
    });
    healthy.on('message.sent', (event) => runs.add(`healthy:${event.id}`));

    const d = createTestDelivery('message.sent', { secret });
    const stuckAnswer = send(stuck, d);
    await sleep(50);
    const early = await send(healthy, d);
    expect(early.status).toBe(409);
    expect(early.body.error?.code).toBe('in_flight');

    await sleep(400);
    expect(await send(healthy, d)).toEqual({ status: 200, body: { received: true } });
    expect(runs.get(`healthy:${d.event.id}`)).toBe(1);

    // The stuck handler finally returns: its complete is refused, the healthy record stays.
    unstick();
    await stuckAnswer;
    expect(await b.command('GET', `${prefix}id:${d.event.id}`)).toMatch(/^c:/);
    expect(await send(stuck, d)).toEqual({ status: 200, body: { received: true, duplicate: true } });
    expect(runs.get(`stuck:${d.event.id}`)).toBe(1);
    expect(runs.get(`healthy:${d.event.id}`)).toBe(1);
  });
});
