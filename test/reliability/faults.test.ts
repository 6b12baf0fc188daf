import { createTestDelivery } from '@sms-webhooks/core';
import { sleep } from '@sms-webhooks/test-helpers';
import { ping, type RedisServer, startRedisServer } from '@sms-webhooks/test-helpers/redis-server';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { buildSends, type Cluster, newTally, reconcile, startCluster } from './helpers/cluster.js';
import { findLeaks, signaturesOf } from './helpers/log-leaks.js';
import { runPool } from './helpers/pool.js';
import { MAX_ATTEMPTS, sinceFirstAttempt } from './helpers/retry-schedule.js';
import { report, scaled } from './helpers/scale.js';
import { deliver } from './helpers/sender.js';

const SECRET = 'whsec_fault_test_secret_a1b2c3d4e5f6';
const EVENTS = scaled(1_500, 10_000);
const SENDERS = 64;
const OUTAGE_MS = scaled(1_500, 3_000);
/**
 * The lease, against the scaled retry schedule (attempts at 0, 0.05, 0.3, 1.8, 7.8, 43.8 s). Longer than
 * the outage plus the restart, so a handler that finished while Redis was down still finds its claim
 * when the queued complete lands; shorter than the time to attempt 5, so a claim orphaned by the crash
 * (see below) has expired by then and attempt 6 is still spare. Real life: 5 min against 1 min, 6 min.
 */
const LEASE_MS = 5_000;
/**
 * kill -9: the dead instance's claim must be gone by attempt 4 (1.8 s), the next one that reaches B, and
 * still held when attempt 2 reaches B. Renewed every 500 ms, it has 1-1.5 s left at the kill: enough for
 * the sender to see the connection drop, wait 50 ms and reach B through Redis on a loaded machine (a 1 s
 * lease left as little as 667 ms). Attempts 5 and 6 are spare should a late kill push the expiry past 4.
 */
const KILL_LEASE_MS = 1_500;
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

/** The instances log (stderr) every refused delivery and failed store call: none may carry a secret. */
function expectNoLeaks(c: Cluster, signatures: string[]): string {
  const stderr = c.instances.map((i) => i.fixture.stderr()).join('\n');
  expect(stderr.length, 'stderr was cut off before it could be checked').toBeLessThan(1_000_000);
  expect(findLeaks(stderr, SECRET, signatures)).toEqual([]);
  return stderr;
}

describe('faults', () => {
  it.each([
    ['stopped (SHUTDOWN)', 'stop'],
    ['crashed (SIGKILL)', 'crash'],
  ] as const)(
    `Redis %s mid-load and started again: ${EVENTS} events, none lost, none handled twice`,
    async (_, how) => {
      expect(LEASE_MS).toBeGreaterThan(OUTAGE_MS + 1_000);
      expect(LEASE_MS).toBeLessThan(sinceFirstAttempt(5));
      redis = await startRedisServer({ local: true, args: PERSISTENT });
      // After a crash, a claim Redis ran but never answered is resent by ioredis, finds its own token
      // and reports 'in-flight', so that event waits out the lease (see the README).
      cluster = await startCluster(3, {
        REDIS_URL: redis.url,
        WEBHOOK_SECRET: SECRET,
        RESPOND: 'after-handlers',
        LEASE_MS: String(LEASE_MS),
      });
      const { deliveries, sends } = buildSends(EVENTS, 3, 0.3, SECRET);
      const tally = newTally(EVENTS, sends.length);
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
        // A send that gets no 2xx in 6 attempts is counted (tally.gaveUp) and its event shows as lost.
        await deliver(d, { ports, first, tally }).catch(() => {});
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
        maxAttempts: tally.maxAttempts,
        attemptsPerSend: JSON.stringify(
          Object.fromEntries([...tally.attemptsPerSend].sort(([a], [b]) => a - b)),
        ),
        gaveUp: tally.gaveUp,
        leaseMs: LEASE_MS,
        ms,
      });
      // The outage really happened: deliveries were refused with 503 and retried.
      expect(tally.statuses.get(503) ?? 0).toBeGreaterThan(0);
      const otherFiveXx = [...tally.statuses].filter(([s]) => typeof s === 'number' && s >= 500 && s !== 503);
      expect(otherFiveXx).toEqual([]);
      expect(result).toEqual({ unique: EVENTS, handled: EVENTS, lost: 0, handledTwice: 0, strays: 0 });
      expect(tally.gaveUp).toBe(0);
      expect(tally.maxAttempts).toBeLessThanOrEqual(MAX_ATTEMPTS);
      // The outage was logged (so the check below read real lines), and no line leaks.
      expect(expectNoLeaks(cluster, signaturesOf(deliveries))).toContain('[redis-instance ');
    },
    scaled(90_000, 900_000),
  );

  it('kill -9 of an instance mid-handler: after the lease the retry is handled, once', async () => {
    expect(KILL_LEASE_MS).toBeLessThan(sinceFirstAttempt(4));
    redis = await startRedisServer({ local: true, args: PERSISTENT });
    cluster = await startCluster(2, {
      REDIS_URL: redis.url,
      WEBHOOK_SECRET: SECRET,
      RESPOND: 'after-handlers',
      LEASE_MS: String(KILL_LEASE_MS),
      SLOW_MS: '60000',
    });
    const [a, b] = cluster.instances as [Cluster['instances'][0], Cluster['instances'][0]];
    const d = createTestDelivery('message.delivered', {
      secret: SECRET,
      data: { metadata: { speed: 'slow' } },
    });
    const tally = newTally(1, 1);

    const sent = deliver(d, { ports: [a.port, b.port], first: 0, tally });
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
    expect(tally.maxAttempts).toBeLessThanOrEqual(MAX_ATTEMPTS);
    expectNoLeaks(cluster, signaturesOf([d]));
    report('kill -9 mid-handler', {
      leaseMs: KILL_LEASE_MS,
      attempts: tally.attempts,
      statuses: JSON.stringify(Object.fromEntries(tally.statuses)),
      handled: handled.length,
      retryHandledAfterMs: ms,
    });
  }, 60_000);
});
