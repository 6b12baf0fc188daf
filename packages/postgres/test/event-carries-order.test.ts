/**
 * With `order`, the event's own row carries its message (`object_key`, and its `version` once done):
 * a delivery writes one row per step, as without order. These tests read the rows themselves, name the
 * statements the store sends, and mix those holds with the order table's (claimOrder, the queue
 * workers' path) and with a table migrated before the columns existed.
 */
import { createReceiver, createTestDelivery } from '@sms-webhooks/core';
import { PostgresStore } from '@sms-webhooks/postgres';
import {
  CLIENTS,
  createDatabase,
  pgPool,
  postgresJs,
  secret,
  sleep,
  type TestDatabase,
} from '@sms-webhooks/test-helpers/postgres-db';
import type pg from 'pg';
import type postgres from 'postgres';
import { orderStatements } from '../src/order-statements.js';
import { statements } from '../src/statements.js';

const HOUR = 3_600_000;
let db: TestDatabase;
let pool: pg.Pool;
let sql: postgres.Sql;

beforeAll(async () => {
  db = await createDatabase('event_carries_order');
  pool = pgPool(db.url, { max: 10 });
  sql = postgresJs(db.url);
});

afterAll(async () => {
  await pool?.end();
  await sql?.end();
  await db?.drop();
});

const quiet = { warn() {}, error() {} };

// The receiver's versions, built as core's encodeVersion and claimVersion do (neither is exported): the
// instant in ms as 15 digits, '.', the status's rank (message.delivered: 2); a claim asks just past it.
const T0 = Date.parse('2026-11-26T10:00:00Z');
const v = (s: number) => `${String(T0 + s * 1000).padStart(15, '0')}.2`;
const ask = (version: string) => `${version}~`;
const slot = (key: string, version: string) => ({ key, version: ask(version), retainMs: HOUR });

/** Migrates `table` and gives a store on it that names each statement it sends (by its exact text). */
async function counted(table: string) {
  await new PostgresStore({ pool, table }).migrate();
  const names = new Map<string, string>();
  for (const [name, text] of [
    ...Object.entries(statements(table)),
    ...Object.entries(orderStatements(table)),
  ]) {
    names.set(text, name);
  }
  const sent: string[] = [];
  const store = new PostgresStore({
    table,
    sweepIntervalMs: 0,
    query: async (text, values) => {
      sent.push(names.get(text) ?? text.slice(0, 40));
      return (await pool.query(text, values as unknown[])).rows;
    },
  });
  return { store, sent };
}

interface EventRow {
  key: string;
  token: string;
  state: string;
  object_key: string | null;
  version: string | null;
  live: boolean;
}

async function rows(table: string, where = 'true', values: unknown[] = []): Promise<EventRow[]> {
  const result = await pool.query(
    `SELECT key, token, state, object_key, version, expires_at > clock_timestamp() AS live
     FROM "${table}" WHERE ${where} ORDER BY key`,
    values,
  );
  return result.rows;
}

async function orderRows(table: string): Promise<unknown[]> {
  return (await pool.query(`SELECT key, version, token FROM "${table}_order" ORDER BY key`)).rows;
}

async function rejection(work: Promise<unknown>): Promise<{ code?: unknown; message: string }> {
  try {
    await work;
  } catch (error) {
    return error as { code?: unknown; message: string };
  }
  throw new Error('expected a rejection');
}

it('a delivery with order writes only its own row: claimed with its message, completed with its version', async () => {
  const table = 'carried_receiver';
  const { store, sent } = await counted(table);
  const receiver = createReceiver({ secret, store, order: true, logger: quiet, respond: 'after-handlers' });
  const seen: string[][] = [];
  receiver.on(['message.sent', 'message.delivered'], () => {
    seen.push([...sent]);
  });
  const delivery = (id: string) =>
    createTestDelivery('message.delivered', {
      secret,
      data: { id, updated_at: new Date(T0 + 5000).toISOString() } as never,
    });
  // The first delivery also makes the store's two start-up checks (the table, then the order index).
  const warm = delivery('msg_warm');
  expect((await receiver.handle({ rawBody: warm.body, headers: warm.headers })).status).toBe(200);
  expect(sent).toEqual(['exists', 'exists', 'claimWithOrder', 'completeCarried']);
  sent.length = 0;
  seen.length = 0;

  const d = delivery('msg_carried');
  expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
  expect(seen, 'before the handler: the one claim').toEqual([['claimWithOrder']]);
  expect(sent, 'after it: the one completion').toEqual(['claimWithOrder', 'completeCarried']);

  expect(await orderRows(table), 'nothing in the order table').toEqual([]);
  expect(await rows(table, 'key = $1', [d.event.id])).toEqual([
    {
      key: d.event.id,
      token: expect.any(String),
      state: 'completed',
      object_key: 'message:msg_carried',
      version: v(5), // the receiver's encoding of updated_at, as built here
      live: true,
    },
  ]);
  expect(await rows(table), 'one row per delivery, no other').toHaveLength(2);

  // The carried version is the message's: an older status is stale, a redelivery a duplicate.
  const older = createTestDelivery('message.sent', {
    secret,
    data: { id: 'msg_carried', updated_at: new Date(T0 + 4000).toISOString() } as never,
  });
  expect(JSON.parse((await receiver.handle({ rawBody: older.body, headers: older.headers })).body)).toEqual({
    received: true,
    stale: true,
  });
  expect(JSON.parse((await receiver.handle({ rawBody: d.body, headers: d.headers })).body)).toEqual({
    received: true,
    duplicate: true,
  });
  await receiver.close();
});

it('a crashed holder whose lease ran out: the next event of its message clears its row and claims', async () => {
  const table = 'carried_crash';
  const { store, sent } = await counted(table);
  expect(await store.claimWithOrder('evt_a', 'a', 80, slot('message:m', v(1)))).toBe('claimed');
  // A crashed: never completed. Its row stays in the way of the index after its lease ran out.
  await sleep(150);
  sent.length = 0;
  expect(await store.claimWithOrder('evt_b', 'b', HOUR, slot('message:m', v(2)))).toBe('claimed');
  expect(sent).toEqual(['claimWithOrder', 'clearExpired', 'claimWithOrder']);
  expect(await rows(table)).toEqual([
    { key: 'evt_b', token: 'b', state: 'in-flight', object_key: 'message:m', version: null, live: true },
  ]);
  // A's redelivery is a new claim of its own row, and its message is B's now.
  expect(await store.claimWithOrder('evt_a', 'a2', HOUR, slot('message:m', v(1)))).toBe('object-in-flight');
  expect(await store.completeWithOrder('evt_b', 'b', HOUR, { key: 'message:m', version: v(2) })).toBe(true);
  expect(await store.claimWithOrder('evt_a', 'a2', HOUR, slot('message:m', v(1)))).toBe('stale');
});

it('a plain claim taking over an expired carried row lets its message go', async () => {
  const table = 'carried_plain_takeover';
  const { store, sent } = await counted(table);
  expect(await store.claimWithOrder('evt_a', 'a', 80, slot('message:m', v(1)))).toBe('claimed');
  await sleep(150);
  // A redelivery of A without order (the receiver's option turned off, say) takes its row over.
  expect(await store.claim('evt_a', 'a2', HOUR)).toBe('claimed');
  expect(await rows(table)).toEqual([
    { key: 'evt_a', token: 'a2', state: 'in-flight', object_key: null, version: null, live: true },
  ]);
  sent.length = 0;
  expect(await store.claimWithOrder('evt_b', 'b', HOUR, slot('message:m', v(2)))).toBe('claimed');
  expect(sent, 'nothing in the way').toEqual(['claimWithOrder']);
});

it('while A holds its message: A again is in-flight, B is object-in-flight and writes nothing', async () => {
  const table = 'carried_busy';
  const { store, sent } = await counted(table);
  expect(await store.claimWithOrder('evt_a', 'a', HOUR, slot('message:m', v(1)))).toBe('claimed');
  sent.length = 0;
  expect(await store.claimWithOrder('evt_a', 'a2', HOUR, slot('message:m', v(1)))).toBe('in-flight');
  expect(await store.claimWithOrder('evt_b', 'b', HOUR, slot('message:m', v(2)))).toBe('object-in-flight');
  expect(sent, 'each answered in one statement').toEqual(['claimWithOrder', 'claimWithOrder']);
  expect((await rows(table)).map((r) => [r.key, r.token])).toEqual([['evt_a', 'a']]);
  expect(await orderRows(table)).toEqual([]);
  // B was not written: a plain claim of it takes it.
  expect(await store.claim('evt_b', 'b', HOUR)).toBe('claimed');
});

it('a table migrated before order carried: a clear error until migrate(), then its rows still answer', async () => {
  const table = 'carried_old';
  // The schema of the release before (git show ae1ea57~1:packages/postgres/sql/migration.sql).
  await pool.query(`CREATE TABLE "${table}" (
  key text PRIMARY KEY,
  token text NOT NULL,
  state text NOT NULL CHECK (state IN ('in-flight', 'committed', 'completed')),
  expires_at timestamptz NOT NULL
);
CREATE INDEX "${table}_expires_at" ON "${table}" (expires_at);
CREATE TABLE "${table}_order" (
  key text PRIMARY KEY,
  version text COLLATE "C",
  token text,
  lease_until timestamptz,
  expires_at timestamptz NOT NULL
);
CREATE INDEX "${table}_order_exp" ON "${table}_order" (expires_at);
INSERT INTO "${table}" VALUES
  ('evt_old1', 't1', 'completed', now() + interval '1 hour'),
  ('evt_old2', 't2', 'completed', now() + interval '1 hour'),
  ('evt_old3', 't3', 'committed', now() + interval '1 hour');
INSERT INTO "${table}_order" VALUES ('message:old', '${v(10)}', NULL, NULL, now() + interval '1 hour');`);
  const store = new PostgresStore({ pool, table, sweepIntervalMs: 0 });
  await store.init(); // the table is there

  const claim = await rejection(store.claimWithOrder('evt_new', 'n', HOUR, slot('message:m', v(1))));
  expect(claim.code).toBe('ERR_SMS_POSTGRES_NO_TABLE');
  expect(claim.message).toMatch(/store\.migrate\(\)/);
  // The worker's path reads the column too: PostgreSQL's 42703 says the same.
  for (const work of [
    () => store.claimOrder('message:m', ask(v(1)), 'w', HOUR),
    () => store.completeOrder('message:m', v(1), 'w', HOUR),
    () => store.renewOrder('message:m', 'w', HOUR),
    () => store.completeWithOrder('evt_old1', 't1', HOUR, { key: 'message:m', version: v(1) }),
  ]) {
    const error = await rejection(work());
    expect(error.code).toBe('ERR_SMS_POSTGRES_NO_TABLE');
    expect(error.message).toMatch(/store\.migrate\(\)/);
  }
  const count = async () => (await pool.query(`SELECT count(*)::int AS n FROM "${table}"`)).rows[0].n;
  expect(await count(), 'nothing written').toBe(3);

  await store.migrate();
  const fresh = new PostgresStore({ pool, table, sweepIntervalMs: 0 });
  expect(await fresh.claimWithOrder('evt_new', 'n', HOUR, slot('message:m', v(1)))).toBe('claimed');
  expect(await fresh.claimWithOrder('evt_new2', 'n2', HOUR, slot('message:old', v(9)))).toBe('stale');
  for (const [key, token] of [
    ['evt_old1', 't1'],
    ['evt_old2', 't2'],
    ['evt_old3', 't3'],
  ] as const) {
    expect(await fresh.claim(key, `${token}-again`, HOUR), key).toBe('completed');
    expect((await rows(table, 'key = $1', [key]))[0], key).toMatchObject({ token, object_key: null });
  }
});

it('holds in the order table and in event rows exclude each other; both versions count', async () => {
  const table = 'carried_mixed';
  const { store } = await counted(table);
  const m = 'message:m';
  // A worker's lease in the order table keeps a receiver's event out, and writes nothing for it.
  expect(await store.claimOrder(m, ask(v(1)), 'w1', HOUR)).toBe('claimed');
  expect(await store.claimWithOrder('evt_e1', 'e1', HOUR, slot(m, v(2)))).toBe('object-in-flight');
  expect(await rows(table)).toEqual([]);
  expect(await store.completeOrder(m, v(1), 'w1', HOUR)).toBe(true);

  // An event row's hold keeps a worker out.
  expect(await store.claimWithOrder('evt_e1', 'e1', HOUR, slot(m, v(2)))).toBe('claimed');
  expect(await store.claimOrder(m, ask(v(3)), 'w2', HOUR)).toBe('in-flight');
  expect(await store.renewOrder(m, 'e1', HOUR), 'the event row holds it').toBe(true);
  expect(await store.renewOrder(m, 'w2', HOUR)).toBe(false);

  expect(await store.completeWithOrder('evt_e1', 'e1', HOUR, { key: m, version: v(2) })).toBe(true);
  expect(await store.renewOrder(m, 'e1', HOUR), 'no longer held').toBe(false);
  // The version v(2) is carried by the event row only; the order table still says v(1).
  expect(await orderRows(table)).toEqual([{ key: m, version: v(1), token: null }]);
  expect((await rows(table))[0]).toMatchObject({ state: 'completed', object_key: m, version: v(2) });
  expect(await store.claimOrder(m, v(2), 'w3', HOUR), 'as new as the carried version').toBe('stale');
  expect(await store.claimOrder(m, ask(v(1)), 'w3', HOUR), 'older').toBe('stale');
  expect(await store.claimOrder(m, ask(v(3)), 'w3', HOUR)).toBe('claimed');
  // And the other way: the worker's completed version makes an older event stale, written completed.
  expect(await store.completeOrder(m, v(3), 'w3', HOUR)).toBe(true);
  expect(await store.claimWithOrder('evt_e2', 'e2', HOUR, slot(m, v(2)))).toBe('stale');
  expect((await rows(table, 'key = $1', ['evt_e2']))[0]).toMatchObject({
    state: 'completed',
    object_key: null,
    live: true,
  });
  expect(await store.claimWithOrder('evt_e3', 'e3', HOUR, slot(m, v(4)))).toBe('claimed');
});

describe.each(CLIENTS)('%s', (client) => {
  it('store.transaction with a carried claim, then completeWithOrder: done, and an older status is stale', async () => {
    const table = `carried_tx_${client.replace(/\W/g, '_')}`;
    await new PostgresStore({ pool, table }).migrate();
    await pool.query(`CREATE TABLE "${table}_writes" (event_id text NOT NULL)`);
    const store =
      client === 'pg'
        ? new PostgresStore({ pool, table, sweepIntervalMs: 0 })
        : new PostgresStore({ sql, table, sweepIntervalMs: 0 });
    const m = 'message:tx';
    expect(await store.claimWithOrder('evt_tx', 'tok', HOUR, slot(m, v(5)))).toBe('claimed');
    const ctx = { claim: { key: 'evt_tx', token: 'tok' }, order: { key: m, version: v(5), token: 'tok' } };
    await store.transaction(ctx, async (tx) => {
      const text = `INSERT INTO "${table}_writes" VALUES ($1)`;
      if (client === 'pg') await (tx as pg.PoolClient).query(text, ['evt_tx']);
      else await (tx as postgres.TransactionSql).unsafe(text, ['evt_tx']);
    });
    expect(await store.completeWithOrder('evt_tx', 'tok', HOUR, { key: m, version: v(5) })).toBe(true);
    expect((await rows(table))[0]).toMatchObject({ state: 'completed', object_key: m, version: v(5) });
    expect(await store.claimWithOrder('evt_older', 'o', HOUR, slot(m, v(4)))).toBe('stale');
    expect(await store.claimOrder(m, ask(v(4)), 'w', HOUR)).toBe('stale');
    expect(await store.claimWithOrder('evt_tx', 'again', HOUR, slot(m, v(5)))).toBe('completed');
    expect((await pool.query(`SELECT event_id FROM "${table}_writes"`)).rows).toEqual([
      { event_id: 'evt_tx' },
    ]);
  });
});

it('20 events of one message claimed at once over 10 connections: one holds it, no loser is written', async () => {
  const table = 'carried_race';
  await new PostgresStore({ pool, table }).migrate();
  const store = new PostgresStore({ pool, table, sweepIntervalMs: 0 });
  for (let round = 0; round < 5; round++) {
    const m = `message:race${round}`;
    const keys = Array.from({ length: 20 }, (_, i) => `evt_r${round}_${String(i).padStart(2, '0')}`);
    const answers = await Promise.all(
      keys.map((key, i) => store.claimWithOrder(key, `tok_${key}`, HOUR, slot(m, v(i + 1)))),
    );
    const winners = keys.filter((_, i) => answers[i] === 'claimed');
    expect(winners, `round ${round}: ${answers.join(' ')}`).toHaveLength(1);
    expect(answers.filter((a) => a === 'object-in-flight')).toHaveLength(19);
    expect(await rows(table, 'object_key = $1', [m])).toEqual([
      {
        key: winners[0],
        token: `tok_${winners[0]}`,
        state: 'in-flight',
        object_key: m,
        version: null,
        live: true,
      },
    ]);
  }
  expect(await rows(table), 'only the winners').toHaveLength(5);
});

// The order index check must not keep a refusal: the table may be migrated while the store runs (by
// itself, or by another instance's deploy).
it('a store that refused before the migration claims once the table is migrated', async () => {
  const table = 'carried_old_same_store';
  await pool.query(`CREATE TABLE "${table}" (
  key text PRIMARY KEY,
  token text NOT NULL,
  state text NOT NULL CHECK (state IN ('in-flight', 'committed', 'completed')),
  expires_at timestamptz NOT NULL
)`);
  const migrating = new PostgresStore({ pool, table, sweepIntervalMs: 0 });
  const other = new PostgresStore({ pool, table, sweepIntervalMs: 0 });
  for (const store of [migrating, other]) {
    const before = await rejection(store.claimWithOrder('evt_new', 'n', HOUR, slot('message:m', v(1))));
    expect(before.code).toBe('ERR_SMS_POSTGRES_NO_TABLE');
  }
  await migrating.migrate();
  expect(await migrating.claimWithOrder('evt_new', 'n', HOUR, slot('message:m', v(1)))).toBe('claimed');
  expect(await other.claimWithOrder('evt_other', 'o', HOUR, slot('message:n', v(1)))).toBe('claimed');
});
