import { startRedisServer } from '@sms-webhooks/test-helpers/redis-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSends, type Cluster, newTally, reconcile, startCluster } from './helpers/cluster.js';
import { findLeaks, signaturesOf } from './helpers/log-leaks.js';
import { runPool } from './helpers/pool.js';
import { report, scaled } from './helpers/scale.js';
import { deliver } from './helpers/sender.js';

const SECRET = 'whsec_load_test_secret_8c1d2e3f4a5b';
const EVENTS = scaled(1_500, 10_000);
const DUPLICATE_SHARE = 0.3;
const SENDERS = 64; // as the issue asks, in CI too
const INSTANCES = 3;

describe('load with duplicates: three instances, one Redis', () => {
  let redis: Awaited<ReturnType<typeof startRedisServer>>;
  let cluster: Cluster;

  beforeAll(async () => {
    redis = await startRedisServer({ local: true });
    cluster = await startCluster(INSTANCES, { REDIS_URL: redis.url, WEBHOOK_SECRET: SECRET });
  });
  afterAll(async () => {
    cluster?.cleanup();
    await redis?.stop();
  });

  it(
    `handles each of ${EVENTS} events exactly once with 30% sent again elsewhere, ${SENDERS} senders, no 5xx`,
    async () => {
      const { deliveries, sends } = buildSends(EVENTS, INSTANCES, DUPLICATE_SHARE, SECRET);
      const tally = newTally(EVENTS, sends.length);
      const bodies = new Map<string, number>();
      const ports = cluster.instances.map((i) => i.port);

      const started = performance.now();
      await runPool(sends, SENDERS, async ({ d, first }) => {
        const body = await deliver(d, { ports, first, tally });
        bodies.set(body, (bodies.get(body) ?? 0) + 1);
      });
      const sendMs = performance.now() - started;
      await cluster.stop(); // drains the background handlers ('immediately' mode) before each exit

      const result = reconcile(
        deliveries.map((d) => d.event.id),
        cluster.handled(),
      );
      const fiveXx = [...tally.statuses].filter(([s]) => typeof s === 'number' && s >= 500);
      report('load with duplicates', {
        instances: INSTANCES,
        senders: SENDERS,
        events: EVENTS,
        sends: sends.length,
        attempts: tally.attempts,
        handled: result.handled,
        unique: result.unique,
        lost: result.lost,
        handledTwice: result.handledTwice,
        statuses: JSON.stringify(Object.fromEntries(tally.statuses)),
        maxAttempts: tally.maxAttempts,
        ms: Math.round(sendMs),
        perSecond: Math.round((tally.attempts / sendMs) * 1000),
      });
      console.log(`handled ${result.handled} of ${result.unique} unique events`);

      expect(fiveXx).toEqual([]);
      expect(tally.statuses.get('network') ?? 0).toBe(0);
      expect(result).toEqual({ unique: EVENTS, handled: EVENTS, lost: 0, handledTwice: 0, strays: 0 });
      // Every send ended in a 2xx: the first of each event accepted, its repeat a duplicate (or, when the
      // repeat came first, the other way round).
      expect(bodies.get('{"received":true}')).toBe(EVENTS);
      expect(bodies.get('{"received":true,"duplicate":true}')).toBe(sends.length - EVENTS);
      // Whatever the instances logged (stderr, both levels) holds no secret and no full signature.
      const stderr = cluster.instances.map((i) => i.fixture.stderr()).join('\n');
      expect(stderr.length, 'stderr was cut off before it could be checked').toBeLessThan(1_000_000);
      expect(findLeaks(stderr, SECRET, signaturesOf(deliveries))).toEqual([]);
    },
    scaled(90_000, 900_000),
  );
});
