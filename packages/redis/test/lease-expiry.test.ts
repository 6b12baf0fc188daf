import { createReceiver, createTestDelivery, type DedupeStore } from '@sms-webhooks/core';
import { deferred } from '@sms-webhooks/test-helpers';
import { type RedisServer, startRedisServer } from '@sms-webhooks/test-helpers/redis-server';
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

    // A 1 s lease: the second claim, two Redis round trips later, comes within it even on a loaded
    // machine (a 200 ms lease could run out first).
    const LEASE = 1000;
    const before = Date.now();
    expect(await dead.claim(id, 'dead', LEASE)).toBe('claimed');
    const claimed = Date.now();
    const early = await next.claim(id, 'next', HOUR);
    expect(Date.now() - before, 'the second claim came within the lease').toBeLessThan(LEASE);
    expect(early).toBe('in-flight');
    await sleep(claimed + LEASE + 50 - Date.now());
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
    timeout: 30_000,
  }, async () => {
    const prefix = runPrefix('lease-renew');
    // Renewed every 667 ms, a 2 s lease outlives an event loop stalled for a second on a loaded machine.
    const LEASE = 2000;
    const options = { secret, respond: 'after-handlers', leaseMs: LEASE, logger: captureLogger() } as const;
    const slow = createReceiver({ ...options, store: a.store({ prefix }) });
    const other = createReceiver({ ...options, store: b.store({ prefix }) });
    let running = 0;
    let most = 0;
    let startedAt = 0;
    const finished = deferred();
    const runs = counter();
    // The first run lasts until the redeliveries below are done, however long they take; a second run
    // (the defect this test is for) returns at once, so its 200 fails the test there.
    const handler = async (event: { id: string }) => {
      most = Math.max(most, ++running);
      if (startedAt === 0) {
        startedAt = Date.now();
        await finished.promise;
      }
      running--;
      runs.add(event.id);
    };
    slow.on('message.sent', handler);
    other.on('message.sent', handler);

    const d = createTestDelivery('message.sent', { secret });
    const first = send(slow, d);
    await vi.waitFor(() => expect(running).toBe(1));
    const during: number[] = [];
    // The service's retries, sped up: every 0.5 s, to the other instance, for 2.5 leases of the handler.
    while (Date.now() - startedAt < 2.5 * LEASE) {
      await sleep(500);
      const answer = await send(other, d);
      during.push(answer.status);
      expect(answer.body.error?.code).toBe('in_flight');
    }
    finished.resolve();
    expect(during.length).toBeGreaterThanOrEqual(4);
    expect(new Set(during)).toEqual(new Set([409]));
    expect(await first).toEqual({ status: 200, body: { received: true } });
    expect(await send(other, d)).toEqual({ status: 200, body: { received: true, duplicate: true } });
    expect(runs.get(d.event.id)).toBe(1);
    expect(most).toBe(1);
    // No renewal failed, and no claim ran out while the handler ran.
    expect(options.logger.lines.filter((l) => l.startsWith('error'))).toEqual([]);
  });

  it('with a store that cannot renew, a handler that hangs past the lease loses the event to a redelivery', async () => {
    const prefix = `lease-recv-${Date.now()}:`;
    // A 1 s lease: the early redelivery, one Redis round trip after the claim, comes within it even on a
    // loaded machine.
    const LEASE = 1000;
    const options = { secret, respond: 'after-handlers', leaseMs: LEASE, logger: captureLogger() } as const;
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
    let stuckAt = 0;
    stuck.on('message.sent', async (event) => {
      stuckAt = Date.now();
      runs.add(`stuck:${event.id}`);
      await new Promise<void>((resolve) => {
        unstick = resolve;
      });
    });
    healthy.on('message.sent', (event) => runs.add(`healthy:${event.id}`));

    const d = createTestDelivery('message.sent', { secret });
    const sentAt = Date.now();
    const stuckAnswer = send(stuck, d);
    // The stuck handler runs, so its claim was taken, after sentAt and at the latest when it started.
    await vi.waitFor(() => expect(stuckAt).toBeGreaterThan(0));
    const early = await send(healthy, d);
    expect(Date.now() - sentAt, 'the early redelivery came within the lease').toBeLessThan(LEASE);
    expect(early.status).toBe(409);
    expect(early.body.error?.code).toBe('in_flight');

    await sleep(stuckAt + LEASE + 50 - Date.now());
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
