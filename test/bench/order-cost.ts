// What `order: true` costs: acknowledged deliveries per second through receiver.handle with RedisStore and
// PostgresStore, order off and on, same run, rounds alternating; and the store round trips each delivery
// makes before its answer and in all (counted at the client: ioredis' call, pg's query; not timed). Each delivery is a new
// status of one of 200 messages, in order, so every ordered event is claimed (none stale).
// Run: pnpm bench:order [--quick] [--two-calls] [--only=redis|postgres]
// With --feature=keep (pnpm bench:keep) the same run compares `keepDeliveries` off and on instead.
import { readFileSync } from 'node:fs';
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
const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
const feature = process.argv.find((a) => a.startsWith('--feature='))?.slice('--feature='.length) ?? 'order';
if (feature !== 'order' && feature !== 'keep') throw new Error('--feature is order or keep');
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

/** CPU seconds used so far by the store's server (Redis, or this database's backends). */
type ServerCpu = () => Promise<number>;

/**
 * One round: the acknowledged rate (the answers only), and the CPU each delivery cost in all, this
 * process and the store's server together, the completions after the answers included. The CPU figure
 * moves less with the machine's other load than the rate does.
 */
async function round(
  receiver: Receiver,
  serverCpu: ServerCpu,
): Promise<{ rate: number; cpuUs: number; serverUs: number }> {
  const batch = deliveries(PER_ROUND);
  let next = 0;
  const server = await serverCpu();
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: AT_ONCE }, async () => {
      while (next < batch.length) {
        const d = batch[next++]!;
        const res = await receiver.handle({ rawBody: d.body, headers: d.headers });
        // 409: another status of the same message still runs here (32 at once over 200 messages).
        if (res.status !== 200 && res.status !== 409) throw new Error(`answered ${res.status}: ${res.body}`);
        if (res.status === 409) busy++;
      }
    }),
  );
  const rate = PER_ROUND / ((performance.now() - started) / 1000);
  await receiver.drain();
  const used = process.cpuUsage(cpu);
  const serverUs = ((await serverCpu()) - server) * 1e6;
  return { rate, cpuUs: (used.user + used.system + serverUs) / PER_ROUND, serverUs: serverUs / PER_ROUND };
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
/** 409 answers in the timed rounds. */
let busy = 0;

async function compare(name: string, make: () => { store: DedupeStore; tally: Tally }, serverCpu: ServerCpu) {
  const rates = { off: [] as number[], on: [] as number[] };
  const cpus = { off: [] as number[], on: [] as number[] };
  const servers = { off: [] as number[], on: [] as number[] };
  const receivers = {} as Record<
    'off' | 'on',
    { receiver: Receiver; tally: Tally; gate: { open: () => void } }
  >;
  for (const mode of ['off', 'on'] as const) {
    const { store, tally } = make();
    const receiver = createReceiver({
      secret,
      store: twoCalls ? withoutOneStep(store) : store,
      order: feature === 'order' && mode === 'on',
      keepDeliveries: feature === 'keep' && mode === 'on',
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
  const busyBefore = { off: 0, on: 0 };
  for (let i = 0; i < ROUNDS; i++) {
    for (const mode of i % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
      const b = busy;
      const r = await round(receivers[mode].receiver, serverCpu);
      busyBefore[mode] += busy - b;
      rates[mode].push(r.rate);
      cpus[mode].push(r.cpuUs);
      servers[mode].push(r.serverUs);
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
  const cpu = { off: median(cpus.off), on: median(cpus.on) };
  const server = { off: median(servers.off), on: median(servers.on) };
  console.log(
    `${name.padEnd(14)} ${feature} off ${off.toFixed(0).padStart(6)}/s (store calls: ${trips.off.before} before the answer, ${trips.off.total} in all)   ` +
      `${feature} on ${on.toFixed(0).padStart(6)}/s (${trips.on.before}, ${trips.on.total})   on/off ${(on / off).toFixed(2)}x ` +
      `(median of the rounds' ratios ${paired.toFixed(2)}x)`,
  );
  console.log(
    `${''.padEnd(14)} CPU per delivery, this process and the store's server: ${feature} off ${cpu.off.toFixed(0)} µs, ` +
      `${feature} on ${cpu.on.toFixed(0)} µs: off/on ${(cpu.off / cpu.on).toFixed(2)}x (the server's part: off ${server.off.toFixed(0)} µs, ` +
      `on ${server.on.toFixed(0)} µs); ` +
      `409 answers: off ${busyBefore.off}, on ${busyBefore.on} of ${ROUNDS * PER_ROUND} each`,
  );
}

const redis = await startRedisServer();
const db = await createDatabase('bench_order');
try {
  const client = new Redis(redis.url);
  const redisCpu = async () => {
    const info = await client.info('cpu');
    const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
    return field('used_cpu_user') + field('used_cpu_sys');
  };
  if (only !== 'postgres')
    await compare(
      'RedisStore',
      () => {
        const { client: c, tally } = counted(client, 'call');
        return {
          store: new RedisStore({ client: c, clientType: 'ioredis', prefix: `bench-${Date.now()}:` }),
          tally,
        };
      },
      redisCpu,
    );
  client.disconnect();
  const pool = pgPool(db.url, { max: 10 });
  await new PostgresStore({ pool }).migrate();
  // The backends serving this database, read from /proc (utime + stime, in clock ticks of 10 ms).
  const postgresCpu = async () => {
    const { rows } = await pool.query(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    let ticks = 0;
    for (const { pid } of rows as { pid: number }[]) {
      try {
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
        ticks += Number(fields[11]) + Number(fields[12]);
      } catch {
        // a backend that just ended
      }
    }
    return ticks / 100;
  };
  if (only !== 'redis')
    await compare(
      'PostgresStore',
      () => {
        const { client: p, tally } = counted(pool, 'query');
        return {
          store: new PostgresStore({ pool: p, statementTimeoutMs: 10_000, sweepIntervalMs: 0 }),
          tally,
        };
      },
      postgresCpu,
    );
  await pool.end();
} finally {
  await redis.stop();
  await db.drop();
}
