import { PostgresStore } from '@sms-webhooks/postgres';
import { CLIENTS, createDatabase, pgPool, sleep } from '@sms-webhooks/test-helpers/postgres-db';
import type pg from 'pg';
import { type Cluster, startCluster } from './cluster.js';
import { sendAll } from './send-all.js';
import { deliveries, supervised } from './service.js';

const EVENTS = 240;
const CONCURRENCY = 16;

// The server is stopped and started again, so this test gets a cluster of its own on a free port: the
// machine's shared PostgreSQL is left alone.
let cluster: Cluster;
let admin: pg.Pool;
let url: string;

beforeAll(async () => {
  cluster = await startCluster();
  url = (await createDatabase('restart', cluster.url)).url;
  admin = pgPool(url);
  await new PostgresStore({ query: (t, v) => admin.query(t, v) }).migrate();
  await admin.query('CREATE TABLE messages (event_id text NOT NULL, instance text NOT NULL)');
}, 120_000);

afterAll(async () => {
  await admin?.end();
  await cluster?.destroy();
});

it('PostgreSQL stopped and started mid-load: 503 while it is down, then every event exactly once, on both clients', async () => {
  // One instance per client, each in its own process and started again if it dies (see below).
  const instances = CLIENTS.map((client) =>
    supervised({ name: client, client, url, table: 'messages', leaseMs: 1000, statementTimeoutMs: 500 }),
  );
  try {
    const events = deliveries(EVENTS);
    let down = false;
    const whileDown = new Map<number, number>();
    let answered = 0;
    // The service's retries, to either instance, until one answers 200.
    const load = sendAll(events, {
      concurrency: CONCURRENCY,
      pick: () => instances[Math.floor(Math.random() * instances.length)]!.current(),
      async onAnswer({ status }, instance) {
        if (down) whileDown.set(status, (whileDown.get(status) ?? 0) + 1);
        if (status === 200) answered++;
        // No answer: the process may have died (wait for its restart), or only this request failed
        // on a loaded machine while the process lives on, so never wait on the exit alone.
        if (status === 0) await Promise.race([instance.exited, sleep(500)]);
      },
      maxAttempts: 300,
      pauseMs: 50,
    });

    while (answered < EVENTS / 3) await sleep(10);
    await cluster.stop();
    down = true;
    await sleep(2000);
    down = false;
    await cluster.start();
    await load;

    // While it was down: store_unavailable for claims, 500 for transactions cut mid-way.
    expect(whileDown.get(503)).toBeGreaterThan(0);
    expect([...whileDown.keys()].every((s) => [0, 200, 409, 500, 503].includes(s))).toBe(true);
    // pg rides it out. postgres.js 3.4.9 may crash the process when the server drops its connections
    // (a write scheduled on a socket already gone, porsager/postgres#1154 and #1208); then the process
    // manager's restart and the service's retries still get every event through, exactly once.
    expect(instances[0]!.restarts).toBe(0);
    const { rows } = await admin.query(
      `SELECT count(DISTINCT event_id)::int AS events, count(*)::int AS rows,
              count(DISTINCT instance)::int AS instances FROM messages`,
    );
    expect(rows[0]).toEqual({ events: EVENTS, rows: EVENTS, instances: 2 });
    const ids = new Set((await admin.query('SELECT event_id FROM messages')).rows.map((r) => r.event_id));
    expect(events.filter((d) => !ids.has(d.event.id))).toEqual([]);
  } finally {
    await Promise.all(instances.map((i) => i.stop()));
  }
}, 120_000);
