// Acknowledged deliveries per second: the RabbitMQ hand-off (publish, broker confirm, then 200) against
// the BullMQ hand-off (add to Redis, then 200), in the same run, rounds alternating. Both dedupe in a
// RedisStore on a redis-server of their own, so only the queue differs. Uses the broker at AMQP_URL
// (default 127.0.0.1:5672) on queues of its own, deleted at the end.
// Run: pnpm exec tsx test/bench/rabbitmq-hand-off.ts [--quick]
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { enqueueTo as bullmqEnqueue } from '@sms-webhooks/bullmq';
import { createReceiver, createTestDelivery, type Receiver } from '@sms-webhooks/core';
import { enqueueTo as rabbitEnqueue } from '@sms-webhooks/rabbitmq';
import { RedisStore } from '@sms-webhooks/redis';
import { startRedisServer } from '@sms-webhooks/test-helpers/redis-server';
import amqp from 'amqplib';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';

const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 3 : 7;
const PER_ROUND = quick ? 500 : 2000;
const AT_ONCE = 32;
const secret = 'whsec_bench_rabbitmq0123456789abcdef01';
const AMQP_URL = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Answers PER_ROUND fresh deliveries, AT_ONCE at a time; resolves with acknowledged deliveries per second. */
async function round(receiver: Receiver): Promise<number> {
  const deliveries = Array.from({ length: PER_ROUND }, () =>
    createTestDelivery('message.delivered', { secret }),
  );
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: AT_ONCE }, async () => {
      while (next < deliveries.length) {
        const d = deliveries[next++]!;
        const res = await receiver.handle({ rawBody: d.body, headers: d.headers });
        if (res.status !== 200) throw new Error(`answered ${res.status}: ${res.body}`);
      }
    }),
  );
  return PER_ROUND / ((performance.now() - started) / 1000);
}

const server = await startRedisServer({ local: true });
const name = `sms-bench-${randomBytes(4).toString('hex')}`;
const connection = await amqp.connect(AMQP_URL);
try {
  const redis = new Redis(server.url, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
  await once(redis, 'ready');
  const store = new RedisStore({ client: redis, clientType: 'ioredis' });
  const queue = new Queue(name, { connection: { url: server.url, enableOfflineQueue: false } });
  await queue.waitUntilReady();
  const dispatch = rabbitEnqueue(connection, { store, queue: name });
  const classicDispatch = rabbitEnqueue(connection, {
    store,
    queue: `${name}-classic`,
    queueType: 'classic',
  });

  const bull = createReceiver({ secret, store, dispatch: bullmqEnqueue(queue) });
  bull.on('message.delivered', async () => {});
  const rabbit = createReceiver({ secret, store, dispatch });
  rabbit.on('message.delivered', async () => {});
  const classic = createReceiver({ secret, store, dispatch: classicDispatch });
  classic.on('message.delivered', async () => {});
  const contenders = {
    'BullMQ hand-off': bull,
    'RabbitMQ hand-off (quorum queue)': rabbit,
    'RabbitMQ hand-off (classic queue)': classic,
  } as const;
  const names = Object.keys(contenders) as (keyof typeof contenders)[];
  const rates = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<
    keyof typeof contenders,
    number[]
  >;
  for (const n of names) await round(contenders[n]); // warm-up: connections, queue declarations, JIT
  for (let r = 0; r < ROUNDS; r++) {
    // Each round starts with the next contender, so none always runs first.
    const order = names.map((_, i) => names[(i + r) % names.length]!);
    for (const contender of order) rates[contender].push(await round(contenders[contender]));
  }
  const bullRate = median(rates['BullMQ hand-off']);
  const show = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
  console.log(
    `${ROUNDS} rounds of ${PER_ROUND} deliveries, ${AT_ONCE} at once, in process (receiver.handle), RedisStore for all:`,
  );
  for (const n of names) {
    const m = median(rates[n]);
    console.log(
      `  ${n.padEnd(34)} ${m.toFixed(0)} acknowledged/s (median; rounds ${show(rates[n])}) ${(m / bullRate).toFixed(2)}x BullMQ`,
    );
  }
  await Promise.all([bull.close(), rabbit.close(), classic.close()]);
  await dispatch.close();
  await classicDispatch.close();
  await queue.obliterate({ force: true });
  await queue.close();
  redis.disconnect();
} finally {
  const channel = await connection.createChannel();
  for (const q of [name, `${name}-classic`]) {
    await channel.deleteQueue(q);
    await channel.deleteQueue(`${q}.failed`);
    await channel.deleteExchange(`${q}.dead-letter`);
  }
  await connection.close();
  await server.stop();
}
