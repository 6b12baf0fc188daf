import { createTestDelivery } from '@sms-webhooks/core';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { ping, type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { buildSends, type Cluster, reconcile, startCluster, type Tally } from './helpers/cluster.js';
import { runPool } from './helpers/pool.js';
import { report, scaled } from './helpers/scale.js';
import { deliver } from './helpers/sender.js';

const SECRET = 'whsec_fault_test_secret_a1b2c3d4e5f6';
const EVENTS = scaled(1_500, 10_000);
const SENDERS = scaled(32, 64);
const OUTAGE_MS = scaled(1_500, 3_000);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let redis: RedisServer | undefined;
let cluster: Cluster | undefined;
afterEach(async () => {
  cluster?.cleanup();
  await redis?.stop();
  cluster = undefined;
  redis = undefined;
});

/** A graceful stop that keeps the data directory (the helper's stop() deletes it: a server gone for good). */
async function shutdown(server: RedisServer): Promise<void> {
  const client = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
  client.on('error', () => {});
  await client.connect();
  await client.call('SHUTDOWN').catch(() => {}); // the connection drops as the server exits
  client.disconnect();
  while (await ping(server.host, server.port, 100)) await sleep(20);
}

/** A dedupe Redis must persist: one restarted empty forgets every completed event (see the README). */
const PERSISTENT = ['--appendonly', 'yes', '--appendfsync', 'always'];

describe('faults', () => {
  it.each([
    ['stopped (SHUTDOWN)', 'stop'],
    ['crashed (SIGKILL)', 'crash'],
  ] as const)(
    `Redis %s mid-load and started again: ${EVENTS} events, none lost, none handled twice`,
    async (_, how) => {
      redis = await startRedisServer({ local: true, args: PERSISTENT });
      // A short lease: after a crash, a claim Redis ran but never answered is resent by ioredis, finds
      // its own token and reports 'in-flight', so that event waits out the lease (see the README).
      cluster = await startCluster(3, {
        REDIS_URL: redis.url,
        WEBHOOK_SECRET: SECRET,
        RESPOND: 'after-handlers',
        LEASE_MS: '5000',
      });
      const { deliveries, sends } = buildSends(EVENTS, 3, 0.3, SECRET);
      const tally: Tally = { events: EVENTS, sends: sends.length, attempts: 0, statuses: new Map() };
      const ports = cluster.instances.map((i) => i.port);
      const server = redis;

      const outage = { stoppedAtAttempt: 0, restartedAtAttempt: 0 };
      const fault = (async () => {
        while (tally.attempts < sends.length / 3) await sleep(10);
        outage.stoppedAtAttempt = tally.attempts;
        if (how === 'crash') server.kill();
        else await shutdown(server);
        await sleep(OUTAGE_MS);
        await server.restart();
        outage.restartedAtAttempt = tally.attempts;
      })();
      const started = performance.now();
      await runPool(sends, SENDERS, async ({ d, first }) => {
        await deliver(d, { ports, first, tally, deadlineMs: 120_000 });
      });
      await fault;
      const ms = Math.round(performance.now() - started);
      await cluster.stop();

      const result = reconcile(
        deliveries.map((d) => d.event.id),
        cluster.handled(),
      );
      report(`Redis ${how} under load`, {
        events: EVENTS,
        sends: sends.length,
        attempts: tally.attempts,
        outageMs: OUTAGE_MS,
        ...outage,
        handled: result.handled,
        unique: result.unique,
        lost: result.lost,
        handledTwice: result.handledTwice,
        statuses: JSON.stringify(Object.fromEntries(tally.statuses)),
        ms,
      });
      // The outage really happened: deliveries were refused with 503 and retried.
      expect(tally.statuses.get(503) ?? 0).toBeGreaterThan(0);
      const otherFiveXx = [...tally.statuses].filter(([s]) => typeof s === 'number' && s >= 500 && s !== 503);
      expect(otherFiveXx).toEqual([]);
      expect(result).toEqual({ unique: EVENTS, handled: EVENTS, lost: 0, handledTwice: 0, strays: 0 });
    },
    scaled(90_000, 900_000),
  );

  it('kill -9 of an instance mid-handler: after the lease the retry is handled, once', async () => {
    redis = await startRedisServer({ local: true, args: PERSISTENT });
    cluster = await startCluster(2, {
      REDIS_URL: redis.url,
      WEBHOOK_SECRET: SECRET,
      RESPOND: 'after-handlers',
      LEASE_MS: '2000',
      SLOW_MS: '60000',
    });
    const [a, b] = cluster.instances as [Cluster['instances'][0], Cluster['instances'][0]];
    const d = createTestDelivery('message.delivered', {
      secret: SECRET,
      data: { metadata: { speed: 'slow' } },
    });
    const tally: Tally = { events: 1, sends: 1, attempts: 0, statuses: new Map() };

    const sent = deliver(d, { ports: [a.port, b.port], first: 0, tally, deadlineMs: 30_000 });
    await a.fixture.waitFor((m) => m.started === d.event.id);
    a.fixture.child.kill('SIGKILL');
    const started = performance.now();
    expect(await sent).toBe('{"received":true}');
    const ms = Math.round(performance.now() - started);

    // The dead instance's claim held until its lease ran out: the retries in between were told 409.
    expect(tally.statuses.get('network') ?? 0).toBeGreaterThan(0);
    expect(tally.statuses.get(409) ?? 0).toBeGreaterThan(0);
    expect(tally.statuses.get(200)).toBe(1);
    // And now it is recorded as done: another redelivery is a duplicate.
    const again = await fetch(`http://127.0.0.1:${b.port}/webhooks`, {
      method: 'POST',
      headers: { ...d.headers, 'x-service-delivery-attempt': '3' },
      body: d.body,
    });
    expect(await again.text()).toBe('{"received":true,"duplicate":true}');

    await cluster.stop();
    const handled = cluster.handled();
    expect(handled).toEqual([d.event.id]);
    report('kill -9 mid-handler', {
      leaseMs: 2000,
      retries: tally.attempts - 1,
      statuses: JSON.stringify(Object.fromEntries(tally.statuses)),
      handled: handled.length,
      retryHandledAfterMs: ms,
    });
  }, 60_000);
});
