/**
 * Kept deliveries (the receiver's `keepDeliveries`): `<table>_kept`, written by keepDelivery and read by
 * keptDelivery, with both clients, on reserved and schema-qualified names, after their retention, on a
 * database migrated before the table existed, and through the sweep.
 */

import { createReceiver, createTestDelivery } from '@sms-webhooks/core';
import type { KeptDelivery } from '@sms-webhooks/core/store';
import { MAX_RAW_KEY_BYTES, PostgresStore } from '@sms-webhooks/postgres';
import {
  CLIENTS,
  type ClientKind,
  createDatabase,
  pgPool,
  postgresJs,
  secret,
  sleep,
  type TestDatabase,
} from '@sms-webhooks/test-helpers/postgres-db';
import type pg from 'pg';
import type postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const HOUR = 3_600_000;
let db: TestDatabase;
let pool: pg.Pool;
let sql: postgres.Sql;
let tables = 0;

beforeAll(async () => {
  db = await createDatabase('kept');
  pool = pgPool(db.url);
  sql = postgresJs(db.url);
  await pool.query('CREATE SCHEMA "group"');
});

afterAll(async () => {
  await pool?.end();
  await sql?.end();
  await db?.drop();
});

function make(kind: ClientKind, table: string, options: Record<string, unknown> = {}) {
  return kind === 'pg'
    ? new PostgresStore({ pool, table, sweepIntervalMs: 0, ...options })
    : new PostgresStore({ sql, table, sweepIntervalMs: 0, ...options });
}

/** A store on a table of its own, migrated. */
async function store(kind: ClientKind, options: Record<string, unknown> = {}) {
  const s = make(kind, `kept${++tables}`, options);
  await s.migrate();
  return s;
}

const delivery = (eventId: string, more: Partial<KeptDelivery> = {}): KeptDelivery => ({
  eventId,
  eventType: 'message.delivered',
  attempt: 1,
  receivedAt: 1_750_000_000_123,
  tenant: undefined,
  bytes: 42,
  body: `{"id":"${eventId}","type":"message.delivered"}`,
  ...more,
});

async function rejection(work: Promise<unknown>): Promise<{ code?: string; message: string }> {
  try {
    await work;
  } catch (error) {
    return error as { code?: string; message: string };
  }
  throw new Error('expected a rejection');
}

/** `<table>_kept`, quoted, in the table's schema. */
const keptTable = (table: string) =>
  table
    .split('.')
    .map((p, i, all) => `"${i === all.length - 1 ? `${p}_kept` : p}"`)
    .join('.');

const keptRows = async (table: string) =>
  (await pool.query(`SELECT key, delivery FROM ${keptTable(table)} ORDER BY key`)).rows as Array<{
    key: string;
    delivery: string;
  }>;

describe.each(CLIENTS)('keepDelivery and keptDelivery (%s)', (kind) => {
  it('round trip: nothing before, the record as given after, every field present', async () => {
    const s = await store(kind);
    expect(await s.keptDelivery('evt_a')).toBeUndefined();
    const d = delivery('evt_a', { tenant: 'acme/eu', attempt: undefined });
    await s.keepDelivery('evt_a', d, HOUR);
    const back = await s.keptDelivery('evt_a');
    expect(back).toStrictEqual(d);
    expect(Object.keys(back!).sort()).toEqual(
      ['attempt', 'body', 'bytes', 'eventId', 'eventType', 'receivedAt', 'tenant'].sort(),
    );
    // One row in `<table>_kept`, the delivery as JSON text; nothing in the dedupe table.
    const rows = await keptRows(s.table);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.key).toBe('evt_a');
    expect(JSON.parse(rows[0]!.delivery)).toMatchObject({ eventId: 'evt_a', tenant: 'acme/eu' });
    expect((await pool.query(`SELECT count(*)::int AS n FROM "${s.table}"`)).rows[0].n).toBe(0);
    // Keeping is not claiming, and a claim leaves what was kept.
    expect(await s.claim('evt_a', 'tok', HOUR)).toBe('claimed');
    expect(await s.keptDelivery('evt_a')).toStrictEqual(d);
  });

  it('bodies come back byte for byte: non-ASCII, NUL, a lone surrogate, quotes, backslashes', async () => {
    const s = await store(kind);
    const bodies = [
      '{"text":"é 🙂 ñ 中文"}',
      '{"text":"a\\u0000b"}',
      'a\u0000b raw NUL',
      'lone \ud800 surrogate',
      `"quotes' and \\ backslashes $1 ::jsonb`,
      'x'.repeat(200_000),
    ];
    for (const [i, body] of bodies.entries()) {
      const d = delivery(`evt_body_${i}`, { body, bytes: Buffer.byteLength(body) });
      await s.keepDelivery(d.eventId, d, HOUR);
      expect(await s.keptDelivery(d.eventId)).toStrictEqual(d);
    }
  });

  it('a later keep replaces the earlier one, and its retention', async () => {
    const s = await store(kind);
    await s.keepDelivery('evt_r', delivery('evt_r'), 60);
    await s.keepDelivery('evt_r', delivery('evt_r', { attempt: 3, tenant: 't' }), HOUR);
    await sleep(120);
    expect(await s.keptDelivery('evt_r')).toStrictEqual(delivery('evt_r', { attempt: 3, tenant: 't' }));
    expect(await keptRows(s.table)).toHaveLength(1);
  });

  it('a body over the limit: the record without it', async () => {
    const s = await store(kind);
    const marker = delivery('evt_big', { body: undefined, bytes: 5_000_000 });
    await s.keepDelivery('evt_big', marker, HOUR);
    const back = await s.keptDelivery('evt_big');
    expect(back).toStrictEqual(marker);
    expect(back && 'body' in back).toBe(true);
  });

  it('is gone once retainMs ran out, on the database clock (the row stays until the sweep)', async () => {
    const s = await store(kind);
    await s.keepDelivery('evt_short', delivery('evt_short'), 50);
    await s.keepDelivery('evt_long', delivery('evt_long'), HOUR);
    expect(await s.keptDelivery('evt_short')).toBeDefined();
    await sleep(120);
    expect(await s.keptDelivery('evt_short')).toBeUndefined();
    expect(await s.keptDelivery('evt_long')).toBeDefined();
    expect((await keptRows(s.table)).map((r) => r.key)).toEqual(['evt_long', 'evt_short']);
    // A later keep of an expired key writes it afresh.
    await s.keepDelivery('evt_short', delivery('evt_short', { attempt: 2 }), HOUR);
    expect((await s.keptDelivery('evt_short'))?.attempt).toBe(2);
  });

  it('keeps unusual and long ids apart, under the same key column value as the claim', async () => {
    const s = await store(kind);
    const long = `evt_${'x'.repeat(MAX_RAW_KEY_BYTES)}`;
    const ids = [
      'evt_plain',
      long,
      `${long}y`,
      'evt_\0nul',
      'sha256:evt',
      'evt_\ud800lone',
      'evt_\'quote"; DROP TABLE x; --',
      'evt_é',
      'evt_e\u0301',
      't:acme/eu:evt_plain',
    ];
    for (const id of ids) await s.keepDelivery(id, delivery(id), HOUR);
    for (const id of ids) expect((await s.keptDelivery(id))?.eventId).toBe(id);
    const keys = (await keptRows(s.table)).map((r) => r.key);
    expect(keys.sort()).toEqual(ids.map((id) => s.keyFor(id)).sort());
    expect(s.keyFor(long)).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(await s.keptDelivery(`${long}z`)).toBeUndefined();
  });

  it('a row that is not a kept delivery is ERR_SMS_POSTGRES_REPLY', async () => {
    const s = await store(kind);
    for (const [i, text] of ['not json', '{"eventId":1}', 'null', '[]'].entries()) {
      await pool.query(`INSERT INTO "${s.table}_kept" VALUES ($1, $2, now() + interval '1 hour')`, [
        `evt_bad_${i}`,
        text,
      ]);
      const error = await rejection(s.keptDelivery(`evt_bad_${i}`));
      expect(error.code).toBe('ERR_SMS_POSTGRES_REPLY');
      expect(error.message).toMatch(/keptDelivery statement/);
    }
  });

  it('refuses a retainMs that is not a positive number', async () => {
    const s = await store(kind);
    for (const ms of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      const error = await rejection(s.keepDelivery('evt_x', delivery('evt_x'), ms));
      expect(error.code).toBe('ERR_SMS_POSTGRES_OPTIONS');
    }
  });
});

describe('a database migrated before the kept table existed', () => {
  it.each(CLIENTS)('keep and read fail with ERR_SMS_POSTGRES_NO_TABLE until migrate() (%s)', async (kind) => {
    const table = `kept_old_${kind === 'pg' ? 'pg' : 'js'}`;
    const s = make(kind, table);
    await s.migrate();
    await pool.query(`DROP TABLE "${table}_kept"`); // as a database migrated by the previous version
    await s.init(); // the dedupe table is there: deliveries are served
    expect(await s.claim('evt_1', 'tok', HOUR)).toBe('claimed');
    for (const work of [
      () => s.keepDelivery('evt_1', delivery('evt_1'), HOUR),
      () => s.keptDelivery('evt_1'),
    ]) {
      const error = await rejection(work());
      expect(error.code).toBe('ERR_SMS_POSTGRES_NO_TABLE');
      expect(error.message).toMatch(new RegExp(`${table}_kept does not exist.*store\\.migrate\\(\\)`));
    }
    // The sweep has nothing to do there, and says nothing.
    expect(await s.sweep()).toBe(0);
    // Another instance's migrate() (its quick check sees the table missing) adds it; this store keeps then.
    await make(kind, table).migrate();
    await s.keepDelivery('evt_1', delivery('evt_1'), HOUR);
    expect(await s.keptDelivery('evt_1')).toStrictEqual(delivery('evt_1'));
    expect(await s.claim('evt_1', 'tok2', HOUR)).toBe('in-flight'); // the dedupe rows were left alone
  });
});

describe.each(CLIENTS)('reserved and schema-qualified table names (%s)', (kind) => {
  const names = kind === 'pg' ? ['user', 'group.order'] : ['select', 'group.table'];

  it.each(names)('%s: migrate, keep, read, expire and sweep', async (table) => {
    const s = make(kind, table);
    await s.migrate();
    await s.migrate(); // again: nothing to do
    await s.keepDelivery('evt_k', delivery('evt_k'), HOUR);
    await s.keepDelivery('evt_gone', delivery('evt_gone'), 1);
    expect(await s.keptDelivery('evt_k')).toStrictEqual(delivery('evt_k'));
    await sleep(20);
    expect(await s.keptDelivery('evt_gone')).toBeUndefined();
    expect(await s.sweep()).toBe(1);
    // The table and its index are in the dedupe table's schema, named after it.
    const [schema, name] = table.includes('.') ? table.split('.') : ['public', table];
    const indexes = await pool.query(
      'SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = $2 ORDER BY indexname',
      [schema, `${name}_kept`],
    );
    expect(indexes.rows.map((r) => r.indexname)).toEqual([`${name}_kept_exp`, `${name}_kept_pkey`]);
    expect((await keptRows(table)).map((r) => r.key)).toEqual(['evt_k']);
  });
});

describe('sweep', () => {
  it('removes expired kept rows in bounded batches beside the dedupe rows, and leaves live ones', async () => {
    const s = await store('pg', { sweepBatch: 3 });
    for (let i = 0; i < 5; i++) await s.keepDelivery(`evt_dead_${i}`, delivery(`evt_dead_${i}`), 1);
    await s.keepDelivery('evt_live', delivery('evt_live'), HOUR);
    await s.claim('evt_claim_dead', 'a', 1);
    await sleep(20);
    // A batch is at most sweepBatch rows of each table.
    expect(await s.sweep()).toBe(4); // the claim, and 3 kept rows
    expect(await s.sweep()).toBe(2);
    expect(await s.sweep()).toBe(0);
    expect((await keptRows(s.table)).map((r) => r.key)).toEqual(['evt_live']);
  });

  it('runs on its own, started by a claim, for kept rows too', async () => {
    const s = make('postgres.js', `kept${++tables}`, { sweepIntervalMs: 60_000 });
    await s.migrate();
    await pool.query(
      `INSERT INTO "${s.table}_kept" SELECT 'evt_old_' || i, '{}', now() - interval '1 day'
       FROM generate_series(1, 20) AS i`,
    );
    await s.claim('evt_new', 'a', HOUR);
    for (let i = 0; i < 50 && (await keptRows(s.table)).length > 0; i++) await sleep(20);
    expect(await keptRows(s.table)).toEqual([]);
    await s.shutdown();
  });
});

describe('statementTimeoutMs', () => {
  it('bounds keepDelivery and keptDelivery', async () => {
    const s = new PostgresStore({ query: () => new Promise(() => {}), statementTimeoutMs: 50 });
    for (const work of [s.keepDelivery('evt_t', delivery('evt_t'), HOUR), s.keptDelivery('evt_t')]) {
      const error = await rejection(work);
      expect(error.code).toBe('ERR_SMS_POSTGRES_TIMEOUT');
      expect(error.message).toMatch(/Delivery of evt_t got no answer from PostgreSQL within 50 ms/);
    }
  });
});

describe('a receiver with keepDeliveries', () => {
  it.each(CLIENTS)('keeps the verified body in <table>_kept before the answer (%s)', async (kind) => {
    const s = await store(kind);
    const receiver = createReceiver({
      secret,
      store: s,
      keepDeliveries: true,
      logger: { warn() {}, error() {} },
    });
    receiver.on('message.delivered', () => {});
    const d = createTestDelivery('message.delivered', { secret });
    expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
    const kept = await s.keptDelivery(d.event.id);
    expect(kept).toMatchObject({
      eventId: d.event.id,
      eventType: 'message.delivered',
      body: d.body,
      bytes: Buffer.byteLength(d.body),
    });
    await receiver.close();
  });
});
