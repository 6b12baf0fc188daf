import { createReceiver, createTestDelivery, type ReceiverOptions } from '@sms-webhooks/core';
import { type RedisServer, startRedisServer } from '@sms-webhooks/test-helpers/redis-server';
import { CLIENT_KINDS, type Connected, connect } from './clients.js';
import { captureLogger, counter, secret, send } from './harness.js';

// Outages need a server these tests own, so REDIS_URL is ignored here.
describe.each(CLIENT_KINDS)('Redis faults (%s)', (kind) => {
  let server: RedisServer;
  let redis: Connected;

  beforeAll(async () => {
    server = await startRedisServer({ local: true });
    redis = await connect(kind, server.url);
  });

  afterAll(async () => {
    await redis?.close();
    await server?.stop();
  });

  function receiver(options: Partial<ReceiverOptions> = {}) {
    const logger = captureLogger();
    const runs = counter();
    // 1 s: short enough for the tests, long enough that a Redis slowed down by a loaded machine still
    // answers the claims that must succeed (300 ms could run out and turn a 200 into a 503).
    const store = redis.store({ prefix: `fault-${Date.now()}:`, commandTimeoutMs: 1000 });
    const r = createReceiver({ secret, store, logger, ...options });
    r.on('message.delivered', (event) => runs.add(event.id));
    return { r, logger, runs, store };
  }

  it('answers 503 store_unavailable while Redis is down, runs nothing, and recovers on restart', async () => {
    const { r, logger, runs, store } = receiver();
    const before = createTestDelivery('message.delivered', { secret });
    expect((await send(r, before)).status).toBe(200);

    await server.stop();
    const during = Array.from({ length: 3 }, () => createTestDelivery('message.delivered', { secret }));
    for (const d of during) {
      const res = await r.handle({ rawBody: d.body, headers: d.headers });
      expect(res.status).toBe(503);
      expect(JSON.parse(res.body).error.code).toBe('store_unavailable');
      expect(res.headers['retry-after']).toBeDefined();
    }
    await r.drain();
    expect(runs.counts.size).toBe(1);
    expect(logger.text()).toMatch(/dedupe store unavailable, answering 503/);

    await server.restart();
    await redis.ready();
    // The client had queued the timed-out claims and sends them on reconnect; the store frees each one
    // it wins, instead of leaving it to block redeliveries (409) for the whole lease.
    const keys = during.map((d) => store.keyFor(d.event.id));
    await vi.waitFor(async () => expect(await redis.command('EXISTS', ...keys)).toBe(0), {
      timeout: 10_000,
      interval: 50,
    });
    // The same events again (the service's retry) and a new one all go through, each exactly once.
    const fresh = createTestDelivery('message.delivered', { secret });
    for (const d of [...during, fresh])
      expect(await send(r, d)).toEqual({ status: 200, body: { received: true } });
    expect(await send(r, during[0]!)).toEqual({ status: 200, body: { received: true, duplicate: true } });
    await r.drain();
    for (const d of [before, ...during, fresh]) expect(runs.get(d.event.id)).toBe(1);
  });

  it("with onStoreError 'process' runs the handler without dedupe and logs a warning", async () => {
    const { r, logger, runs } = receiver({ onStoreError: 'process', respond: 'after-handlers' });
    await server.stop();
    try {
      const d = createTestDelivery('message.delivered', { secret });
      expect(await send(r, d)).toEqual({ status: 200, body: { received: true } });
      expect(runs.get(d.event.id)).toBe(1);
      expect(logger.lines.filter((l) => l.startsWith('warn'))).toEqual([
        expect.stringMatching(new RegExp(`processing ${d.event.id} without dedupe`)),
      ]);
    } finally {
      await server.restart();
      await redis.ready();
    }
  });

  it('a Redis that stops answering costs commandTimeoutMs, then 503, not a hang', async () => {
    const { r, runs, store } = receiver();
    const admin = await connect('ioredis', server.url);
    try {
      // DEBUG SLEEP blocks the whole server, as a long-running script or a stalled host would.
      const sleeping = admin.command('DEBUG', 'SLEEP', '2.5');
      const asleepAt = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 100));
      const d = createTestDelivery('message.delivered', { secret });
      const res = await send(r, d);
      // The premise: the claim timed out while Redis still slept.
      expect(Date.now() - asleepAt).toBeLessThan(2500);
      // Had the request waited for Redis, the claim would have won and the answer been 200.
      expect(res.status).toBe(503);
      expect(res.body.error?.code).toBe('store_unavailable');
      expect(runs.get(d.event.id)).toBe(0);

      await sleeping;
      // The timed-out claim reaches Redis after all, and the store gives it back. When it lands depends on
      // the client (node-redis may still be sending it after DEBUG SLEEP has answered), so a key that is
      // absent now proves nothing: retry as the service would. A claim never given back would answer 409
      // for the whole lease (5 min), far past this wait.
      await vi.waitFor(
        async () => expect(await send(r, d)).toEqual({ status: 200, body: { received: true } }),
        {
          timeout: 10_000,
          interval: 100,
        },
      );
      expect(await redis.command('EXISTS', store.keyFor(d.event.id))).toBe(1);
      await r.drain();
      expect(runs.get(d.event.id)).toBe(1);
    } finally {
      await admin.close();
    }
  });
});
