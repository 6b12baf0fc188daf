// What `order: true` costs: acknowledged deliveries per second through receiver.handle with RedisStore and
// PostgresStore, order off and on, same run, rounds alternating; and the store round trips each delivery
// makes before its answer and in all (counted at the client: ioredis' call, pg's query; not timed). Each delivery is a new
// status of one of 200 messages, in order, so every ordered event is claimed (none stale).
// Run: pnpm bench:order [--quick] [--two-calls]
import { createReceiver, createTestDelivery, type DedupeStore, type Receiver } from '@sms-webhooks/core';
import { PostgresStore } from '@sms-webhooks/postgres';
import { RedisStore } from '@sms-webhooks/redis';
import { createDatabase, pgPool } from '@sms-webhooks/test-helpers/postgres-db';
import { startRedisServer } from '@sms-webhooks/test-helpers/redis-server';
import { Redis } from 'ioredis';

const quick = process.argv.includes('--quick');
// --two-calls: the stores without claimWithOrder and completeWithOrder, as a third party's store (and
// every store before them): claim then claimOrder before the answer, completeOrder then complete after.
const twoCalls = process.argv.includes('--two-calls');
const ROUNDS = quick ? 3 : 7;
const PER_ROUND = quick ? 400 : 2000;
const AT_ONCE = 32;
const secret = 'whsec_bench_order0123456789abcdef012345';
let errors = 0;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

type Tally = { calls: number; counting: boolean };

/**
 * A client whose round trips are counted while `counting` is on: ioredis' `call` (each store operation
 * is one EVALSHA, or EVAL after NOSCRIPT) or pg's `query` (one statement each).
 */
function counted<C extends object>(client: C, method: 'call' | 'query'): { client: C; tally: Tally } {
  const tally = { calls: 0, counting: false };
  const wrapped = new Proxy(client, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (typeof value !== 'function') return value;
      if (name !== method) return value.bind(target);
      return (...args: unknown[]) => {
        if (tally.counting) tally.calls++;
        return value.apply(target, args);
      };
    },
  });
  return { client: wrapped, tally };
}

/** The store as one without the optional one-step methods. */
function withoutOneStep(store: DedupeStore): DedupeStore {
  return new Proxy(store, {
    get(target, name) {
      if (name === 'claimWithOrder' || name === 'completeWithOrder') return undefined;
      const value = Reflect.get(target, name, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
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

/**
 * Round trips before the answer of one delivery, in 'immediately' mode (the handler waits on a gate, so
 * nothing after the answer has started), and in all once the handler ran and the outcome was recorded.
 */
async function roundTrips(receiver: Receiver, tally: Tally, gate: { open: () => void }) {
  const [d] = deliveries(1);
  await receiver.drain();
  tally.calls = 0;
  tally.counting = true;
  holding = true;
  await receiver.handle({ rawBody: d!.body, headers: d!.headers });
  const before = tally.calls;
  holding = false;
  gate.open();
  await receiver.drain();
  tally.counting = false;
  return { before, total: tally.calls };
}

let holding = false;

async function compare(name: string, make: () => { store: DedupeStore; tally: Tally }) {
  const rates = { off: [] as number[], on: [] as number[] };
  const receivers = {} as Record<
    'off' | 'on',
    { receiver: Receiver; tally: Tally; gate: { open: () => void } }
  >;
  for (const mode of ['off', 'on'] as const) {
    const { store, tally } = make();
    const receiver = createReceiver({
      secret,
      store: twoCalls ? withoutOneStep(store) : store,
      order: mode === 'on',
      logger: { warn() {}, error: (m: string) => void (errors++ === 0 && console.error(m)) },
    });
    const gate = { wait: Promise.resolve(), open: () => {} };
    receiver.on('message.delivered', () => {
      if (!holding) return undefined;
      gate.wait = new Promise<void>((resolve) => {
        gate.open = resolve;
      });
      return gate.wait;
    });
    receivers[mode] = { receiver, tally, gate: { open: () => gate.open() } };
  }
  for (let i = 0; i < ROUNDS; i++) {
    for (const mode of i % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
      rates[mode].push(await round(receivers[mode].receiver));
    }
  }
  const trips = {
    off: await roundTrips(receivers.off.receiver, receivers.off.tally, receivers.off.gate),
    on: await roundTrips(receivers.on.receiver, receivers.on.tally, receivers.on.gate),
  };
  const off = median(rates.off);
  const on = median(rates.on);
  // Each round's two runs sit side by side in time: their ratio drifts less with the machine's other load.
  const paired = median(rates.on.map((r, i) => r / rates.off[i]!));
  console.log(
    `${name.padEnd(14)} order off ${off.toFixed(0).padStart(6)}/s (round trips: ${trips.off.before} before the answer, ${trips.off.total} in all)   ` +
      `order on ${on.toFixed(0).padStart(6)}/s (${trips.on.before}, ${trips.on.total})   on/off ${(on / off).toFixed(2)}x ` +
      `(median of the rounds' ratios ${paired.toFixed(2)}x)`,
  );
}

const redis = await startRedisServer();
const db = await createDatabase('bench_order');
try {
  const client = new Redis(redis.url);
  await compare('RedisStore', () => {
    const { client: c, tally } = counted(client, 'call');
    return {
      store: new RedisStore({ client: c, clientType: 'ioredis', prefix: `bench-${Date.now()}:` }),
      tally,
    };
  });
  client.disconnect();
  const pool = pgPool(db.url, { max: 10 });
  await new PostgresStore({ pool }).migrate();
  await compare('PostgresStore', () => {
    const { client: p, tally } = counted(pool, 'query');
    return { store: new PostgresStore({ pool: p, statementTimeoutMs: 10_000, sweepIntervalMs: 0 }), tally };
  });
  await pool.end();
} finally {
  await redis.stop();
  await db.drop();
}
