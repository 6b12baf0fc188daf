import { createReceiver, createTestDelivery } from '@sms-webhooks/core';
import { migrate, migrationSql, PostgresStore } from '@sms-webhooks/postgres';
import {
  CLIENTS,
  createDatabase,
  pgPool,
  postgresJs,
  secret,
  type TestDatabase,
} from '@sms-webhooks/test-helpers/postgres-db';
import type pg from 'pg';
import type postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const HOUR = 3_600_000;
let db: TestDatabase;
let pool: pg.Pool;
let sql: postgres.Sql;

beforeAll(async () => {
  db = await createDatabase('reserved');
  pool = pgPool(db.url);
  sql = postgresJs(db.url);
  // Reserved words as a schema name too: `group` and `order` need quoting wherever they appear.
  await pool.query('CREATE SCHEMA "group"');
});

afterAll(async () => {
  await pool?.end();
  await sql?.end();
  await db?.drop();
});

const quiet = { warn() {}, error() {} };

// `user`, `order`, `select` and `table` are reserved in PostgreSQL: unquoted, `CREATE TABLE user` is a
// 42601 syntax error. Before, the option check let them through and migrate() and claim() failed so.
describe.each(CLIENTS)('a reserved word as the table name (%s)', (kind) => {
  const tables = kind === 'pg' ? ['user', 'group.order'] : ['select', 'group.table'];

  it.each(tables)(
    '%s: migrate, init, claim, complete, renew, release, sweep and completeIn work',
    async (table) => {
      const store =
        kind === 'pg'
          ? new PostgresStore({ pool, table, sweepIntervalMs: 0 })
          : new PostgresStore({ sql, table, sweepIntervalMs: 0 });
      await store.migrate();
      await store.migrate(); // again: nothing to do
      await store.init();
      expect(await store.claim('evt_a', 'tok-a', HOUR)).toBe('claimed');
      expect(await store.renew('evt_a', 'tok-a', HOUR)).toBe(true);
      expect(await store.complete('evt_a', 'tok-a', HOUR)).toBe(true);
      expect(await store.claim('evt_a', 'tok-b', HOUR)).toBe('completed');
      expect(await store.claim('evt_b', 'tok-b', 1)).toBe('claimed');
      expect(await store.release('evt_b', 'tok-c')).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await store.sweep()).toBe(1);
      expect(await store.claim('evt_c', 'tok-c', HOUR)).toBe('claimed');
      await store.transaction({ claim: { key: 'evt_c', token: 'tok-c' } }, async () => {});
      expect(await store.claim('evt_c', 'tok-d', HOUR)).toBe('completed');
      // With order: the event's row carries its message (the index check, and every order statement).
      const slot = (version: string) => ({ key: 'message:m', version, retainMs: HOUR });
      expect(await store.claimWithOrder('evt_o1', 'tok-o', HOUR, slot('2~'))).toBe('claimed');
      expect(await store.claimOrder('message:m', '3~', 'tok-p', HOUR)).toBe('in-flight');
      expect(await store.renewOrder('message:m', 'tok-o', HOUR)).toBe(true);
      expect(await store.completeWithOrder('evt_o1', 'tok-o', HOUR, { key: 'message:m', version: '2' })).toBe(
        true,
      );
      expect(await store.claimWithOrder('evt_o2', 'tok-q', HOUR, slot('1~'))).toBe('stale');
      expect(await store.claimOrder('message:m', '3~', 'tok-p', HOUR)).toBe('claimed');
      expect(await store.completeOrder('message:m', '3', 'tok-p', HOUR)).toBe(true);
      expect(await store.releaseOrder('message:m', 'tok-p')).toBe(false);
      expect(await store.claimWithOrder('evt_o3', 'tok-r', HOUR, slot('2~'))).toBe('stale');

      // The rows are in the table of that name (and its index in its schema).
      const [schema, name] = table.includes('.') ? table.split('.') : ['public', table];
      const { rows } = await pool.query(
        `SELECT count(*)::int AS n FROM ${table
          .split('.')
          .map((p) => `"${p}"`)
          .join('.')}`,
      );
      expect(rows[0].n).toBe(5); // evt_a, evt_c and the three ordered events
      const indexes = await pool.query(
        'SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = $2 ORDER BY indexname',
        [schema, name],
      );
      expect(indexes.rows.map((r) => r.indexname)).toEqual([
        `${name}_expires_at`,
        `${name}_object_busy`,
        `${name}_object_version`,
        `${name}_pkey`,
      ]);
      await store.shutdown();
    },
  );
});

describe('a reserved word as the table name, end to end', () => {
  it('migrate({ table: "order" }) and a receiver on that table: 200, then duplicate', async () => {
    await migrate({ sql, table: 'order' });
    const store = new PostgresStore({ pool, table: 'order' });
    const receiver = createReceiver({ secret, store, logger: quiet, respond: 'after-handlers' });
    let runs = 0;
    receiver.on('message.delivered', () => {
      runs++;
    });
    const d = createTestDelivery('message.delivered', { secret });
    const first = await receiver.handle({ rawBody: d.body, headers: d.headers });
    const again = await receiver.handle({ rawBody: d.body, headers: d.headers });
    expect([first.status, JSON.parse(again.body)]).toEqual([200, { received: true, duplicate: true }]);
    expect(runs).toBe(1);
    await receiver.close();
  });

  it('the script migrationSql() gives runs as it is, for a reserved name too', async () => {
    await pool.query(migrationSql('group.user'));
    const store = new PostgresStore({ pool, table: 'group.user' });
    await store.init();
    expect(await store.claim('evt_script', 'tok', HOUR)).toBe('claimed');
  });
});
