import { PostgresStore } from '@sms-webhooks/postgres';
import { createDatabase, type TestDatabase } from '@sms-webhooks/test-helpers/postgres-db';
import pg from 'pg';
import { sendAll } from './send-all.js';
import { deliveries, type Instance, startInstance } from './service.js';

const EVENTS = Number(process.env.PG_MULTI_EVENTS ?? 10_000);
const DUPLICATES = 0.3;
const CONCURRENCY = 96;

let db: TestDatabase;
let admin: pg.Client;
const instances: Instance[] = [];

beforeAll(async () => {
  db = await createDatabase('multi');
  admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  await new PostgresStore({ query: (t, v) => admin.query(t, v) }).migrate();
  await admin.query('CREATE TABLE messages (event_id text NOT NULL, instance text NOT NULL)');
});

afterAll(async () => {
  await Promise.all(instances.map((i) => i.stop()));
  await admin?.end();
  await db?.drop();
});

it(`3 instances in their own processes, ${EVENTS} events with ${DUPLICATES * 100}% sent twice at once: each business row written exactly once`, async () => {
  const configs = [
    { name: 'a', client: 'pg' },
    { name: 'b', client: 'postgres.js' },
    { name: 'c', client: 'pg' },
  ] as const;
  instances.push(
    ...(await Promise.all(
      configs.map((c) =>
        startInstance({ ...c, url: db.url, table: 'messages', leaseMs: 30_000, fastCommits: true }),
      ),
    )),
  );

  const events = deliveries(EVENTS);
  // Every event once, 30% of them a second time, shuffled so that most pairs are in flight together.
  const queue = [...events, ...events.slice(0, EVENTS * DUPLICATES)].sort(() => Math.random() - 0.5);
  const answers = new Map<string, number>();
  let accepted = 0;
  let duplicates = 0;
  // The service's retries: an in-flight answer (409) is sent again, to any instance, until it is 200.
  await sendAll(queue, {
    concurrency: CONCURRENCY,
    pick: () => instances[Math.floor(Math.random() * instances.length)]!,
    onAnswer({ status, duplicate, code }) {
      const answer = code === undefined ? String(status) : `${status} ${code}`;
      answers.set(answer, (answers.get(answer) ?? 0) + 1);
      if (status !== 200) return;
      if (duplicate) duplicates++;
      else accepted++;
    },
    maxAttempts: 200,
    pauseMs: 5,
  });

  // 409 while another instance holds the claim. 503 store_unavailable is the store's statementTimeoutMs
  // (2 s) running out while a claim waits for a pool connection on a loaded machine: the service retries
  // it, and the late claim is given back. A kept-alive connection the instance closed as fetch sent on it
  // (undici's UND_ERR_SOCKET, or ECONNRESET) is no answer, which the service retries too: the rows below
  // show it cost nothing, and it stays rare. Anything else (a 500, another code) is a defect.
  const expected = new Set(['200', '409 in_flight', '503 store_unavailable']);
  const closed = new Set(['0 UND_ERR_SOCKET', '0 ECONNRESET']);
  expect([...answers.keys()].filter((a) => !expected.has(a) && !closed.has(a))).toEqual([]);
  const unanswered = [...closed].reduce((n, a) => n + (answers.get(a) ?? 0), 0);
  expect(unanswered, JSON.stringify(Object.fromEntries(answers))).toBeLessThan(queue.length / 100);
  expect(answers.get('200')).toBe(EVENTS + EVENTS * DUPLICATES);
  const { rows } = await admin.query<{ events: string; rows: string; doubled: string }>(
    `SELECT count(DISTINCT event_id) AS events, count(*) AS rows,
            (SELECT count(*) FROM (SELECT 1 FROM messages GROUP BY event_id HAVING count(*) > 1) d) AS doubled
     FROM messages`,
  );
  expect(rows[0]).toEqual({ events: String(EVENTS), rows: String(EVENTS), doubled: '0' });
  expect(accepted).toBe(EVENTS);
  expect(duplicates).toBe(EVENTS * DUPLICATES);
  // Every instance did its share, on both clients.
  const by = await admin.query(
    'SELECT instance, count(*)::int AS n FROM messages GROUP BY instance ORDER BY 1',
  );
  expect(by.rows.map((r) => r.instance)).toEqual(['a', 'b', 'c']);
  const records = await admin.query(
    `SELECT state, count(*)::int AS n FROM sms_webhook_events GROUP BY state`,
  );
  expect(records.rows).toEqual([{ state: 'completed', n: EVENTS }]);
}, 240_000);
