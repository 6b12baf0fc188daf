import { createReceiver, createTestDelivery, type DedupeStore } from '@sms-webhooks/core';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { type Connected, connect } from './clients.js';
import { captureLogger, counter, runPrefix, secret, send, sleep } from './harness.js';

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

  it('a live instance whose handler runs past the lease keeps the event: redeliveries elsewhere get 409', {
    timeout: 15_000,
  }, async () => {
    const prefix = runPrefix('lease-renew');
    const options = { secret, respond: 'after-handlers', leaseMs: 1000, logger: captureLogger() } as const;
    const slow = createReceiver({ ...options, store: a.store({ prefix }) });
    const other = createReceiver({ ...options, store: b.store({ prefix }) });
    let running = 0;
    let most = 0;
    const runs = counter();
    const handler = async (event: { id: string }) => {
      most = Math.max(most, ++running);
      await sleep(2500);
      running--;
      runs.add(event.id);
    };
    slow.on('message.sent', handler);
    other.on('message.sent', handler);

    const d = createTestDelivery('message.sent', { secret });
    const first = send(slow, d);
    const during: number[] = [];
    // The service's retries, sped up: every 0.5 s, to the other instance, while the 2.5 s handler runs.
    for (let t = 500; t <= 2000; t += 500) {
      await sleep(500);
      const answer = await send(other, d);
      during.push(answer.status);
      expect(answer.body.error?.code).toBe('in_flight');
    }
    expect(during).toEqual([409, 409, 409, 409]);
    expect(await first).toEqual({ status: 200, body: { received: true } });
    expect(await send(other, d)).toEqual({ status: 200, body: { received: true, duplicate: true } });
    expect(runs.get(d.event.id)).toBe(1);
    expect(most).toBe(1);
    // No renewal failed, and no claim ran out while the handler ran.
    expect(options.logger.lines.filter((l) => l.startsWith('error'))).toEqual([]);
  });

  it('with a store that cannot renew, a handler that hangs past the lease loses the event to a redelivery', async () => {
    const prefix = `lease-recv-${Date.now()}:`;
    const options = { secret, respond: 'after-handlers', leaseMs: 300, logger: captureLogger() } as const;
    // What a third-party store without renew() gives: the claim runs out after leaseMs whatever runs.
    const inner = a.store({ prefix });
    const noRenew: DedupeStore = {
      localKeys: false,
      claim: (...args) => inner.claim(...args),
      complete: (...args) => inner.complete(...args),
      release: (...args) => inner.release(...args),
    };
    const stuck = createReceiver({ ...options, store: noRenew });
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
