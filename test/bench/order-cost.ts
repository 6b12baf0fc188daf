// What `order: true` costs: acknowledged deliveries per second through receiver.handle with RedisStore and
// PostgresStore, order off and on, same run, rounds alternating; and the store round trips each delivery
// makes before its answer (counted by a wrapper around the store, not timed). Each delivery is a new
// status of one of 200 messages, in order, so every ordered event is claimed (none stale).
// Run: pnpm exec tsx test/bench/order-cost.ts [--quick]
import { createReceiver, createTestDelivery, type DedupeStore, type Receiver } from '@sms-webhooks/core';
import { PostgresStore } from '@sms-webhooks/postgres';
import { RedisStore } from '@sms-webhooks/redis';
import { createDatabase, pgPool } from '@sms-webhooks/test-helpers/postgres-db';
import { startRedisServer } from '@sms-webhooks/test-helpers/redis-server';
import { Redis } from 'ioredis';

const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 3 : 7;
const PER_ROUND = quick ? 400 : 2000;
const AT_ONCE = 32;
const secret = 'whsec_bench_order0123456789abcdef012345';
let errors = 0;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The store, with every call made while `counting` is on counted. */
function counted(store: DedupeStore) {
  const tally = { calls: 0, counting: false };
  const wrapped = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      // Bound to the store itself: its private fields are not reachable through the proxy.
      if (name === 'init') return value.bind(target);
      return (...args: unknown[]) => {
        if (tally.counting) tally.calls++;
        return value.apply(target, args);
      };
    },
  });
  return { store: wrapped, tally };
}

let sequence = 0;
function deliveries(n: number) {
  return Array.from({ length: n }, () => {
    const seq = ++sequence;
    const updated_at = new Date(Date.UTC(2026, 10, 26) + seq * 1000).toISOString();
    return createTestDelivery('message.delivered', { secret, data: { id: `msg_${seq % 200}`, updated_at } });
  });
}

async function round(receiver: Receiver): Promise<number> {
  const batch = deliveries(PER_ROUND);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: AT_ONCE }, async () => {
      while (next < batch.length) {
        const d = batch[next++]!;
        const res = await receiver.handle({ rawBody: d.body, headers: d.headers });
        // 409: another status of the same message still runs here (32 at once over 200 messages).
        if (res.status !== 200 && res.status !== 409) throw new Error(`answered ${res.status}: ${res.body}`);
      }
    }),
  );
  const rate = PER_ROUND / ((performance.now() - started) / 1000);
  await receiver.drain();
  return rate;
}

/** Store calls before the answer of one delivery, in 'immediately' mode (the handler runs after it). */
async function callsBeforeAnswer(receiver: Receiver, tally: { calls: number; counting: boolean }) {
  const [d] = deliveries(1);
  await receiver.drain();
  tally.calls = 0;
  tally.counting = true;
  await receiver.handle({ rawBody: d!.body, headers: d!.headers });
  tally.counting = false;
  const calls = tally.calls;
  await receiver.drain();
  return calls;
}

async function compare(name: string, make: () => DedupeStore) {
  const rates = { off: [] as number[], on: [] as number[] };
  const receivers = {} as Record<
    'off' | 'on',
    { receiver: Receiver; tally: { calls: number; counting: boolean } }
  >;
  for (const mode of ['off', 'on'] as const) {
    const { store, tally } = counted(make());
    const receiver = createReceiver({
      secret,
      store,
      order: mode === 'on',
      logger: { warn() {}, error: (m: string) => void (errors++ === 0 && console.error(m)) },
    });
    receiver.on('message.delivered', async () => {});
    receivers[mode] = { receiver, tally };
  }
  for (let i = 0; i < ROUNDS; i++) {
    for (const mode of i % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
      rates[mode].push(await round(receivers[mode].receiver));
    }
  }
  const trips = {
    off: await callsBeforeAnswer(receivers.off.receiver, receivers.off.tally),
    on: await callsBeforeAnswer(receivers.on.receiver, receivers.on.tally),
  };
  const off = median(rates.off);
  const on = median(rates.on);
  console.log(
    `${name.padEnd(14)} order off ${off.toFixed(0).padStart(6)}/s (${trips.off} store call before the answer)   ` +
      `order on ${on.toFixed(0).padStart(6)}/s (${trips.on})   on/off ${(on / off).toFixed(2)}x`,
  );
}

const redis = await startRedisServer();
const db = await createDatabase('bench_order');
try {
  const client = new Redis(redis.url);
  await compare(
    'RedisStore',
    () => new RedisStore({ client, clientType: 'ioredis', prefix: `bench-${Date.now()}:` }),
  );
  client.disconnect();
  const pool = pgPool(db.url, { max: 10 });
  await new PostgresStore({ pool }).migrate();
  await compare('PostgresStore', () => new PostgresStore({ pool, statementTimeoutMs: 10_000 }));
  await pool.end();
} finally {
  await redis.stop();
  await db.drop();
}
