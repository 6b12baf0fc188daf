import type { TestDelivery } from '@sms-webhooks/core';
import { PostgresStore } from '@sms-webhooks/postgres';
import {
  CLIENTS,
  type ClientKind,
  createDatabase,
  sleep,
  type TestDatabase,
} from '@sms-webhooks/test-helpers/postgres-db';
import pg from 'pg';
import { CRASH_POINTS, type CrashPoint } from './instance.js';
import { deliver, deliveries, supervised } from './service.js';

/**
 * Events per crash point, per client, plus rounds of concurrent deliveries killed at a random moment:
 * 16 kills per client. Each kill costs an instance start (about a second here), so more runs are for
 * a soak: PG_CRASH_PER_POINT=20 PG_CRASH_ROUNDS=30 pnpm vitest run packages/postgres/test/crash.test.ts
 */
const PER_POINT = Number(process.env.PG_CRASH_PER_POINT ?? 2);
const RANDOM_ROUNDS = Number(process.env.PG_CRASH_ROUNDS ?? 4);
const LEASE_MS = 600;

let db: TestDatabase;
let admin: pg.Client;

beforeAll(async () => {
  db = await createDatabase('crash');
  admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  await new PostgresStore({ query: (t, v) => admin.query(t, v) }).migrate();
});

afterAll(async () => {
  await admin?.end();
  await db?.drop();
});

async function exactlyOnce(table: string, events: TestDelivery<'message.delivered'>[]) {
  const { rows } = await admin.query<{ event_id: string; n: number }>(
    `SELECT event_id, count(*)::int AS n FROM ${table} GROUP BY event_id`,
  );
  const counts = new Map(rows.map((r) => [r.event_id, r.n]));
  const wrong = events
    .filter((e) => counts.get(e.event.id) !== 1)
    .map((e) => [e.event.id, counts.get(e.event.id)]);
  expect(wrong).toEqual([]);
  expect(rows).toHaveLength(events.length);
}

describe.concurrent('kill -9 inside the transactional handler', () => {
  it.each(CLIENTS)(
    '%s: at every point, and at random moments under load, each row exists exactly once after the redeliveries',
    async (client: ClientKind) => {
      const table = `messages_${client.replace(/\W/g, '_')}`;
      await admin.query(`CREATE TABLE ${table} (event_id text NOT NULL, instance text NOT NULL)`);
      const pool = supervised({
        name: client,
        client,
        url: db.url,
        table,
        leaseMs: LEASE_MS,
        jitterMs: 20,
        fastCommits: true,
      });
      const attempts = new Map<string, number>();
      const done = new Set<string>();
      const send = async (d: TestDelivery<'message.delivered'>, crash?: CrashPoint) => {
        const instance = await pool.current();
        if (crash) instance.child.send({ type: 'crash', id: d.event.id, point: crash });
        const attempt = (attempts.get(d.event.id) ?? 0) + 1;
        attempts.set(d.event.id, attempt);
        const { status } = await deliver(instance.url, d, attempt);
        if (status === 200) done.add(d.event.id);
        // Dead: wait for its exit, so that the next send goes to the spare rather than the corpse.
        if (status === 0) await instance.exited;
        return status;
      };
      try {
        // Each point, in turn: the instance dies in the handler of that event (first delivery only).
        const planned = CRASH_POINTS.flatMap((point) =>
          deliveries(PER_POINT).map((d) => [d, point] as const),
        );
        const died = new Map<CrashPoint, number>();
        for (const [d, point] of planned) {
          if ((await send(d, point)) === 0) died.set(point, (died.get(point) ?? 0) + 1);
        }
        expect(Object.fromEntries(died)).toEqual(Object.fromEntries(CRASH_POINTS.map((p) => [p, PER_POINT])));

        // Anywhere at all: concurrent deliveries, and a kill -9 at a random moment among them.
        const random = deliveries(RANDOM_ROUNDS * 12);
        for (let round = 0; round < RANDOM_ROUNDS; round++) {
          const instance = await pool.current();
          const batch = random.slice(round * 12, round * 12 + 12);
          const sent = Promise.all(batch.map((d) => send(d)));
          await sleep(5 + Math.random() * 60);
          instance.child.kill('SIGKILL');
          await sent;
        }

        // The service's retries: every event not yet answered 200 is sent again until it is. A claim the
        // dead instance held answers 409 until its lease runs out.
        const all = [...planned.map(([d]) => d), ...random];
        for (let pass = 0; done.size < all.length; pass++) {
          if (pass > 50) throw new Error(`${all.length - done.size} events never answered 200`);
          for (const d of all) if (!done.has(d.event.id)) await send(d);
          if (done.size < all.length) await sleep(LEASE_MS / 2);
        }
        await exactlyOnce(table, all);
      } finally {
        await pool.stop();
      }
    },
    240_000,
  );
});
