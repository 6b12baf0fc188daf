import { createReceiver, createTestDelivery } from '@sms-webhooks/core';
import { PostgresStore } from '@sms-webhooks/postgres';
import { createDatabase, pgPool, secret, type TestDatabase } from '@sms-webhooks/test-helpers/postgres-db';
import type pg from 'pg';

// `order: true` costs no extra round trip before the answer: the event's claim and its message's are
// one statement. Counted at the client: every statement the store sends through `query`.
let db: TestDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  db = await createDatabase('claim_with_order');
  pool = pgPool(db.url);
  await new PostgresStore({ pool, table: 'trips' }).migrate();
});

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

const quiet = { warn() {}, error() {} };
const at = (s: number) => new Date(Date.UTC(2026, 10, 26, 10, 0, s)).toISOString();
const status = (type: 'message.sent' | 'message.delivered', message: string, s: number) =>
  createTestDelivery(type, { secret, data: { id: message, updated_at: at(s) } as never });

function counting() {
  const sent: string[] = [];
  const store = new PostgresStore({
    table: 'trips',
    sweepIntervalMs: 0,
    query: async (text, values) => {
      sent.push(text.slice(0, 40).replace(/\s+/g, ' '));
      return (await pool.query(text, values as unknown[])).rows;
    },
  });
  return { store, sent };
}

it('with order, one statement before the answer, as without', async () => {
  for (const order of [false, true]) {
    const { store, sent } = counting();
    const receiver = createReceiver({ secret, store, order, logger: quiet });
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    receiver.on('message.delivered', (event) => (event.data.id === `msg_trip_${order}` ? gate : undefined));
    // A first delivery makes the store's table check, once before any claim.
    const warm = status('message.delivered', `msg_warm_${order}`, 1);
    await receiver.handle({ rawBody: warm.body, headers: warm.headers });
    await receiver.drain();
    sent.length = 0;
    const d = status('message.delivered', `msg_trip_${order}`, 1);
    expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
    expect(sent.length, `order ${order}: ${sent.join(' | ')}`).toBe(1);
    release();
    await receiver.drain();
    expect(sent.length, `order ${order}: and after the handler`).toBe(2);
  }
});

it('a stale event is answered in that one statement, and its redelivery is a duplicate', async () => {
  const { store, sent } = counting();
  const receiver = createReceiver({ secret, store, order: true, logger: quiet });
  receiver.on(['message.sent', 'message.delivered'], () => {});
  const delivered = status('message.delivered', 'msg_stale', 20);
  const sentEvent = status('message.sent', 'msg_stale', 10);
  expect((await receiver.handle({ rawBody: delivered.body, headers: delivered.headers })).json).toEqual({
    received: true,
  });
  await receiver.drain();
  sent.length = 0;
  expect((await receiver.handle({ rawBody: sentEvent.body, headers: sentEvent.headers })).json).toEqual({
    received: true,
    stale: true,
  });
  expect(sent.length).toBe(1);
  await receiver.drain();
  expect(sent.length, 'nothing after a stale answer').toBe(1);
  expect((await receiver.handle({ rawBody: sentEvent.body, headers: sentEvent.headers })).json).toEqual({
    received: true,
    duplicate: true,
  });
});

it('events of one message claimed at once: one runs, the others are 409 and free for their retry', async () => {
  const store = new PostgresStore({ pool, table: 'trips' });
  const receiver = createReceiver({ secret, store, order: true, logger: quiet, respond: 'after-handlers' });
  // The run that claims holds until every other claim was answered, however slowly the pool's new
  // connections start: a claim made after it completed would rightly run (a newer version).
  let ran = 0;
  let answered = 0;
  let open = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  receiver.on('message.delivered', async () => {
    if (++ran > 1) open(); // two at once is the failure: let both finish and the assertions say so
    await gate;
  });
  const events = Array.from({ length: 12 }, (_, i) => status('message.delivered', 'msg_race', 30 + i));
  const first = await Promise.all(
    events.map((d) =>
      receiver.handle({ rawBody: d.body, headers: d.headers }).then((r) => {
        if (r.status !== 200 && ++answered === events.length - 1) open();
        return r;
      }),
    ),
  );
  expect(first.filter((r) => r.status === 200)).toHaveLength(1);
  expect(first.filter((r) => r.status === 409)).toHaveLength(11);
  expect(ran).toBe(1);
  // Their retries, one by one: each is either run (newer than what completed) or stale, never 409.
  for (const d of events) {
    const r = await receiver.handle({ rawBody: d.body, headers: d.headers });
    expect(r.status).toBe(200);
  }
});
