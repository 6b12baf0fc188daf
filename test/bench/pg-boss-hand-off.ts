// Acknowledged deliveries per second: the pg-boss hand-off (claim held and job inserted in one
// transaction, then 200) against the PostgresStore alone (claim, 200, handler after the ack), in the
// same run, rounds alternating. Run: pnpm exec tsx test/bench/pg-boss-hand-off.ts [--quick]
import { createReceiver, createTestDelivery, type Receiver } from '@sms-webhooks/core';
import { enqueueTo } from '@sms-webhooks/pg-boss';
import { PostgresStore } from '@sms-webhooks/postgres';
import { createDatabase, pgPool } from '@sms-webhooks/test-helpers/postgres-db';
import PgBoss from 'pg-boss';

const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 3 : 7;
const PER_ROUND = quick ? 300 : 2000;
const AT_ONCE = 32;
const secret = 'whsec_bench_pgboss0123456789abcdef0123';

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
  const rate = PER_ROUND / ((performance.now() - started) / 1000);
  await receiver.drain(); // the store-alone handlers' completes, off the clock but not overlapping the next round
  return rate;
}

const db = await createDatabase('bench_pgboss');
try {
  const pool = pgPool(db.url, { max: 10 });
  const store = new PostgresStore({ pool });
  await store.migrate();
  const boss = new PgBoss({ connectionString: db.url, schedule: false, supervise: false, max: 4 });
  boss.on('error', () => {});
  await boss.start();
  await boss.createQueue('sms-webhooks');

  const alone = createReceiver({ secret, store });
  alone.on('message.delivered', async () => {});
  const handOff = createReceiver({ secret, store, dispatch: enqueueTo(boss, { store }) });
  handOff.on('message.delivered', async () => {});
  const contenders = { 'PostgresStore alone': alone, 'pg-boss hand-off': handOff } as const;
  const rates: Record<string, number[]> = { 'PostgresStore alone': [], 'pg-boss hand-off': [] };
  await round(alone); // warm-up: connections, prepared statements, JIT
  await round(handOff);
  for (let r = 0; r < ROUNDS; r++) {
    const order =
      r % 2 === 0
        ? (['PostgresStore alone', 'pg-boss hand-off'] as const)
        : (['pg-boss hand-off', 'PostgresStore alone'] as const);
    for (const name of order) rates[name]!.push(await round(contenders[name]));
  }
  const a = median(rates['PostgresStore alone']!);
  const b = median(rates['pg-boss hand-off']!);
  console.log(
    `${ROUNDS} rounds of ${PER_ROUND} deliveries, ${AT_ONCE} at once, in process (receiver.handle):`,
  );
  console.log(
    `  PostgresStore alone: ${a.toFixed(0)} acknowledged/s (median; rounds ${rates['PostgresStore alone']!.map((x) => x.toFixed(0)).join(', ')})`,
  );
  console.log(
    `  pg-boss hand-off:    ${b.toFixed(0)} acknowledged/s (median; rounds ${rates['pg-boss hand-off']!.map((x) => x.toFixed(0)).join(', ')})`,
  );
  console.log(`  ratio: ${(b / a).toFixed(2)}x`);
  await Promise.all([alone.close(), handOff.close()]);
  await boss.stop({ graceful: false, wait: true });
  await pool.end();
} finally {
  await db.drop();
}
