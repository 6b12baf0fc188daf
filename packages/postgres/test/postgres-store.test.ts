import { readFileSync } from 'node:fs';
import { createReceiver, createTestDelivery } from '@sms-webhooks/core';
import { MAX_RAW_KEY_BYTES, migrate, migrationSql, PostgresStore } from '@sms-webhooks/postgres';
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

const HOUR = 3_600_000;
let db: TestDatabase;
let pool: pg.Pool;
let sql: postgres.Sql;
let tables = 0;

beforeAll(async () => {
  db = await createDatabase('store');
  pool = pgPool(db.url);
  sql = postgresJs(db.url);
});

afterAll(async () => {
  await pool?.end();
  await sql?.end();
  await db?.drop();
});

/** A store on a table of its own, created. */
async function store(kind: ClientKind = 'pg', options: Record<string, unknown> = {}) {
  const table = `t${++tables}`;
  const s =
    kind === 'pg'
      ? new PostgresStore({ pool, table, ...options })
      : new PostgresStore({ sql, table, ...options });
  await s.migrate();
  return s;
}

async function row(table: string, key: string) {
  const { rows } = await pool.query(`SELECT token, state, expires_at FROM ${table} WHERE key = $1`, [key]);
  return rows[0] as { token: string; state: string; expires_at: Date } | undefined;
}

describe('options', () => {
  it('refuses missing, doubled and wrong clients with a message that says what to pass', () => {
    const make = (o: unknown) => () => new PostgresStore(o as never);
    expect(make(undefined)).toThrow(/pass options/);
    expect(make({})).toThrow(/pass a client: new PostgresStore\(\{ pool \}\)/);
    expect(make({ pool, sql })).toThrow(/pass one client, not pool and sql/);
    expect(make({ pool: sql })).toThrow(/pool must be a pg.Pool/);
    expect(make({ sql: pool })).toThrow(/sql must be a postgres.js instance/);
    expect(make({ query: 'SELECT 1' })).toThrow(/query must be a function/);
    expect(make({ pool, table: 'Events' })).toThrow(/table must be a lowercase SQL name/);
    expect(make({ pool, table: 'a; DROP TABLE x' })).toThrow(/table must be/);
    expect(make({ pool, table: 'x'.repeat(53) })).toThrow(/at most 52/);
    expect(make({ pool, statementTimeoutMs: 0 })).toThrow(/`statementTimeoutMs` must be a positive number/);
    expect(make({ pool, sweepBatch: 1.5 })).toThrow(/`sweepBatch` must be a positive integer/);
    expect(make({ pool, sweepIntervalMs: -1 })).toThrow(/`sweepIntervalMs` must be 0/);
    // From an environment variable: the message names the type, not just `got 86400000`.
    expect(make({ pool, retainMs: '86400000' })).toThrow(
      expect.objectContaining({
        name: 'PostgresStoreError',
        code: 'ERR_SMS_POSTGRES_OPTIONS',
        message:
          '@sms-webhooks/postgres: `retainMs` must be a positive number of ms, got the string "86400000".',
      }),
    );
    expect(make({ pool, statementTimeoutMs: '5000' })).toThrow(
      /of ms \(or Infinity\), got the string "5000"/,
    );
    try {
      make({})();
    } catch (error) {
      expect((error as { code?: string }).code).toBe('ERR_SMS_POSTGRES_OPTIONS');
    }
    expect(new PostgresStore({ pool, table: 'webhooks.events' }).table).toBe('webhooks.events');
    expect(new PostgresStore({ pool }).localKeys).toBe(false);
  });
});

describe('migrate', () => {
  it('the shipped SQL file is migrationSql() for the default table', () => {
    const file = readFileSync(new URL('../sql/migration.sql', import.meta.url), 'utf8');
    expect(file.replace(/^--.*\n/gm, '')).toBe(migrationSql());
  });

  it("the README's SQL blocks are parts of migrationSql(), as migrate() runs them", () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const blocks = [...readme.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    for (const block of blocks) expect(migrationSql()).toContain(block);
  });

  it('creates the table once, from several instances at the same time, with either client', async () => {
    const table = 'migrated_together';
    await Promise.all([
      ...Array.from({ length: 4 }, () => new PostgresStore({ pool, table }).migrate()),
      ...Array.from({ length: 4 }, () => migrate({ sql, table })),
    ]);
    await new PostgresStore({ pool, table }).migrate(); // again: nothing to do
    const { rows } = await pool.query(
      `SELECT indexname FROM pg_indexes WHERE tablename = $1 ORDER BY indexname`,
      [table],
    );
    expect(rows.map((r) => r.indexname)).toEqual([
      `${table}_expires_at`,
      `${table}_object_busy`,
      `${table}_object_version`,
      `${table}_pkey`,
    ]);
  });

  it('on a migrated table, takes no lock: it returns while deliveries write to both tables', async () => {
    // An instance that starts while others serve: ALTER TABLE and CREATE INDEX IF NOT EXISTS would wait
    // for the writers (and deadlock with a statement reading both tables).
    const table = 'migrated_busy';
    const store = new PostgresStore({ pool, table });
    await store.migrate();
    const writer = await pool.connect();
    try {
      await writer.query('BEGIN');
      await writer.query(`LOCK TABLE "${table}", "${table}_order" IN ROW EXCLUSIVE MODE`);
      const outcome = await Promise.race([
        new PostgresStore({ pool, table }).migrate().then(() => 'migrated'),
        sleep(3000).then(() => 'waited for the writers'),
      ]);
      expect(outcome).toBe('migrated');
    } finally {
      await writer.query('COMMIT');
      writer.release();
    }
  });

  it('on a table missing any one relation of migrationSql(), creates it (its quick check names them all)', async () => {
    // migrate() returns early when its check finds every table and index: a relation added to the
    // script but not to the check would never reach a table migrated before.
    const table = 'migrated_partly';
    const created = [
      ...migrationSql(table).matchAll(/CREATE (UNIQUE INDEX|INDEX|TABLE) IF NOT EXISTS ("[^"]+")/g),
    ];
    expect(created.length).toBeGreaterThanOrEqual(5);
    const store = new PostgresStore({ pool, table });
    await store.migrate();
    for (const [, kind, name] of created) {
      if (name === `"${table}"`) continue; // the events table itself: dropping it is a new install
      await pool.query(`DROP ${kind === 'TABLE' ? 'TABLE' : 'INDEX'} ${name}`);
      await store.migrate();
      const { rows } = await pool.query('SELECT to_regclass($1) IS NOT NULL AS here', [name]);
      expect(rows[0], `${name} made again`).toEqual({ here: true });
    }
  });

  it('works in a schema of its own', async () => {
    await pool.query('CREATE SCHEMA IF NOT EXISTS hooks');
    const s = new PostgresStore({ pool, table: 'hooks.events' });
    await s.migrate();
    await s.init();
    expect(await s.claim('evt_schema', 'a', HOUR)).toBe('claimed');
  });

  it('init() says how to create a missing table, and the receiver answers 503 until it exists', async () => {
    const s = new PostgresStore({ pool, table: 'not_there_yet' });
    await expect(s.init()).rejects.toMatchObject({
      code: 'ERR_SMS_POSTGRES_NO_TABLE',
      message: expect.stringMatching(/not_there_yet does not exist: call await store.migrate\(\)/),
    });
    const lines: string[] = [];
    const logger = { warn: () => {}, error: (...a: unknown[]) => lines.push(a.join(' ')) };
    const receiver = createReceiver({ secret, store: s, logger, respond: 'after-handlers' });
    receiver.on('message.delivered', () => {});
    const d = createTestDelivery('message.delivered', { secret });
    expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(503);
    expect(lines.join('\n')).toMatch(/does not exist/);
    await s.migrate();
    expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
  });
});

describe.each(CLIENTS)('statements (%s)', (kind) => {
  it('keeps short ids as they are and hashes long, NUL-holding and sha256:-looking ones', async () => {
    const s = await store(kind);
    const long = `evt_${'x'.repeat(MAX_RAW_KEY_BYTES)}`;
    for (const id of ['evt_plain', long, 'evt_\0nul', 'sha256:evt', 'evt_\ud800lone']) {
      expect(await s.claim(id, 'a', HOUR)).toBe('claimed');
      expect(await s.complete(id, 'a', HOUR)).toBe(true);
      expect(await s.claim(id, 'b', HOUR)).toBe('completed');
    }
    expect(s.keyFor('evt_plain')).toBe('evt_plain');
    expect(s.keyFor(long)).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(s.keyFor('sha256:evt')).not.toBe('sha256:evt');
    expect((await row(s.table, 'evt_plain'))?.state).toBe('completed');
  });

  it('keeps leases and retention on the database clock, rounded up to whole ms', async () => {
    const s = await store(kind);
    const before = Date.now();
    await s.claim('evt_clock', 'a', 1500.2);
    const after = Date.now();
    const r = await row(s.table, 'evt_clock');
    expect(r?.state).toBe('in-flight');
    // The database's now() falls between before and after, however long the claim took.
    expect(r!.expires_at.getTime() - before).toBeGreaterThanOrEqual(1400);
    expect(r!.expires_at.getTime() - after).toBeLessThan(1600);
    await expect(s.claim('evt_clock', 'a', 0)).rejects.toThrow(/leaseMs must be a positive number/);
  });

  it('renew extends only a live claim of its own token', async () => {
    const s = await store(kind);
    // A 1 s lease: the renewal, two round trips later, comes within it even on a loaded machine.
    const LEASE = 1000;
    const before = Date.now();
    await s.claim('evt_renew', 'a', LEASE);
    const claimed = Date.now();
    expect(await s.renew('evt_renew', 'b', HOUR)).toBe(false);
    const renewed = await s.renew('evt_renew', 'a', HOUR);
    expect(Date.now() - before, 'the renewal came within the lease').toBeLessThan(LEASE);
    expect(renewed).toBe(true);
    // Past the first lease: only the renewal keeps the claim.
    await sleep(claimed + LEASE + 100 - Date.now());
    expect(await s.claim('evt_renew', 'b', HOUR)).toBe('in-flight');
    expect(await s.complete('evt_renew', 'a', HOUR)).toBe(true);
    expect(await s.renew('evt_renew', 'a', HOUR)).toBe(false);
  });
});

describe.each(CLIENTS)('transaction (%s)', (kind) => {
  async function setup() {
    const s = await store(kind);
    const business = `${s.table}_messages`;
    await pool.query(`CREATE TABLE ${business} (event_id text NOT NULL, body text)`);
    const count = async (id: string) =>
      Number((await pool.query(`SELECT count(*) FROM ${business} WHERE event_id = $1`, [id])).rows[0].count);
    /** One INSERT, through whichever client the transaction hands over. */
    const insert = async (tx: unknown, id: string) => {
      if (kind === 'pg') await (tx as pg.PoolClient).query(`INSERT INTO ${business} VALUES ($1, 'hi')`, [id]);
      else await (tx as postgres.TransactionSql).unsafe(`INSERT INTO ${business} VALUES ($1, 'hi')`, [id]);
    };
    return { s, business, count, insert };
  }

  it('commits the writes and the completed record together; complete() after it confirms, release() cannot undo it', async () => {
    const { s, count, insert } = await setup();
    const claim = { key: 'evt_tx_ok', token: 'tok' };
    await s.claim(claim.key, claim.token, HOUR);
    const result = await s.transaction({ claim }, async (tx) => {
      await insert(tx, claim.key);
      return 42;
    });
    expect(result).toBe(42);
    expect(await count(claim.key)).toBe(1);
    expect((await row(s.table, claim.key))?.state).toBe('committed');
    expect(await s.claim(claim.key, 'other', HOUR)).toBe('completed');
    expect(await s.renew(claim.key, claim.token, HOUR)).toBe(true); // a renew racing the commit is no alarm
    expect(await s.release(claim.key, claim.token)).toBe(false);
    expect(await s.complete(claim.key, claim.token, HOUR)).toBe(true);
    expect((await row(s.table, claim.key))?.state).toBe('completed');
    expect(await s.complete(claim.key, claim.token, HOUR)).toBe(false);
    expect(await s.release(claim.key, claim.token)).toBe(false);
    expect(await s.claim(claim.key, 'other', HOUR)).toBe('completed');
  });

  it('rolls everything back when the handler throws: the claim stays, and release frees it', async () => {
    const { s, count, insert } = await setup();
    const claim = { key: 'evt_tx_throw', token: 'tok' };
    await s.claim(claim.key, claim.token, HOUR);
    await expect(
      s.transaction({ claim }, async (tx) => {
        await insert(tx, claim.key);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await count(claim.key)).toBe(0);
    expect((await row(s.table, claim.key))?.state).toBe('in-flight');
    expect(await s.release(claim.key, claim.token)).toBe(true);
    expect(await s.claim(claim.key, 'retry', HOUR)).toBe('claimed');
  });

  it('rolls back and throws CLAIM_LOST when another delivery took the claim over', async () => {
    const { s, count, insert } = await setup();
    const claim = { key: 'evt_tx_lost', token: 'slow' };
    await s.claim(claim.key, claim.token, 100);
    await sleep(200);
    expect(await s.claim(claim.key, 'next', HOUR)).toBe('claimed');
    await expect(s.transaction({ claim }, (tx) => insert(tx, claim.key))).rejects.toMatchObject({
      code: 'ERR_SMS_POSTGRES_CLAIM_LOST',
    });
    expect(await count(claim.key)).toBe(0);
    expect(await row(s.table, claim.key)).toMatchObject({ token: 'next', state: 'in-flight' });
  });

  it('a second transaction of the same delivery is refused (one transaction per event)', async () => {
    const { s, count, insert } = await setup();
    const claim = { key: 'evt_tx_twice', token: 'tok' };
    await s.claim(claim.key, claim.token, HOUR);
    await s.transaction({ claim }, (tx) => insert(tx, claim.key));
    await expect(s.transaction({ claim }, (tx) => insert(tx, claim.key))).rejects.toMatchObject({
      code: 'ERR_SMS_POSTGRES_CLAIM_LOST',
    });
    expect(await count(claim.key)).toBe(1);
  });

  it('without ctx.claim (no dedupe) it is a plain transaction', async () => {
    const { s, count, insert } = await setup();
    await s.transaction({}, (tx) => insert(tx, 'evt_tx_noclaim'));
    expect(await count('evt_tx_noclaim')).toBe(1);
    expect(await row(s.table, 'evt_tx_noclaim')).toBeUndefined();
  });

  it('through the receiver: ctx.claim, then the receiver completes; a redelivery is a duplicate', async () => {
    const { s, count, insert } = await setup();
    const receiver = createReceiver({ secret, store: s, respond: 'after-handlers' });
    receiver.on('message.delivered', async (event, ctx) => {
      await s.transaction(ctx, (tx) => insert(tx, event.id));
    });
    const d = createTestDelivery('message.delivered', { secret });
    const send = async () => {
      const res = await receiver.handle({ rawBody: d.body, headers: d.headers });
      return [res.status, JSON.parse(res.body)];
    };
    expect(await send()).toEqual([200, { received: true }]);
    expect((await row(s.table, d.event.id))?.state).toBe('completed');
    expect(await send()).toEqual([200, { received: true, duplicate: true }]);
    expect(await count(d.event.id)).toBe(1);
  });
});

describe('completeIn, in a transaction you opened', () => {
  it('takes a pg client, a postgres.js transaction or a query function, and throws CLAIM_LOST to roll back', async () => {
    const s = await store('pg');
    for (const [i, via] of ['pg', 'postgres.js', 'function'].entries()) {
      const claim = { key: `evt_in_${i}`, token: 'tok' };
      await s.claim(claim.key, claim.token, HOUR);
      if (via === 'pg') {
        const client = await pool.connect();
        await client.query('BEGIN');
        await s.completeIn({ claim }, client);
        await client.query('COMMIT');
        client.release();
      } else if (via === 'postgres.js') {
        await sql.begin((tx) => s.completeIn({ claim }, tx));
      } else {
        await sql.begin((tx) =>
          s.completeIn({ claim }, (text: string, values: unknown[]) => tx.unsafe(text, values as never[])),
        );
      }
      expect((await row(s.table, claim.key))?.state).toBe('committed');
      await expect(sql.begin((tx) => s.completeIn({ claim }, tx))).rejects.toMatchObject({
        code: 'ERR_SMS_POSTGRES_CLAIM_LOST',
      });
    }
    await expect(s.completeIn({ claim: { key: 'k', token: 't' } }, 'nope')).rejects.toThrow(
      /completeIn\(ctx, tx\) needs the transaction/,
    );
  });

  it('a store over a query function has no transaction() of its own and says what to use', async () => {
    const s = new PostgresStore({ query: (text, values) => pool.query(text, values), table: 't1' });
    await expect(s.transaction({}, async () => {})).rejects.toThrow(/store.completeIn\(ctx, tx\)/);
  });
});

describe('sweep', () => {
  it('removes expired claims and records in bounded batches, and leaves live ones', async () => {
    const s = await store('pg', { sweepIntervalMs: 0, sweepBatch: 3 });
    for (let i = 0; i < 7; i++) await s.claim(`evt_dead_${i}`, 'a', 1);
    await s.claim('evt_done', 'a', HOUR);
    await s.complete('evt_done', 'a', 1);
    await s.claim('evt_live', 'a', HOUR);
    await s.claim('evt_kept', 'a', HOUR);
    await s.complete('evt_kept', 'a', HOUR);
    await sleep(20);
    expect(await s.sweep()).toBe(3);
    expect(await s.sweep()).toBe(3);
    expect(await s.sweep()).toBe(2);
    expect(await s.sweep()).toBe(0);
    const { rows } = await pool.query(`SELECT key FROM ${s.table} ORDER BY key`);
    expect(rows.map((r) => r.key)).toEqual(['evt_kept', 'evt_live']);
  });

  it('runs on its own, off the claim path, one batch at a time until the backlog is gone', async () => {
    const s = await store('postgres.js', { sweepIntervalMs: 60_000, sweepBatch: 10 });
    await pool.query(
      `INSERT INTO ${s.table} SELECT 'evt_old_' || i, 'x', 'completed', now() - interval '1 day'
       FROM generate_series(1, 35) AS i`,
    );
    const remaining = async () => Number((await pool.query(`SELECT count(*) FROM ${s.table}`)).rows[0].count);
    const old = async () =>
      Number((await pool.query(`SELECT count(*) FROM ${s.table} WHERE key LIKE 'evt_old_%'`)).rows[0].count);
    // A claim starts a batch only when none is running, so how many claims the 4 batches take depends on
    // how fast the database answers: claim until the backlog is gone (each claim waits for none).
    let claims = 0;
    while (claims < 40 && (await old()) > 0) {
      await s.claim(`evt_new_${claims++}`, 'a', HOUR);
      await sleep(30);
    }
    expect(await old()).toBe(0);
    expect(claims, 'one batch of 10 per claim at most: 35 rows take 4').toBeGreaterThanOrEqual(4);
    expect(await remaining()).toBe(claims);
    // Once caught up, the next sweep waits for the interval: more expired rows stay until then.
    await pool.query(
      `INSERT INTO ${s.table} VALUES ('evt_later', 'x', 'completed', now() - interval '1 day')`,
    );
    await s.claim('evt_new_x', 'a', HOUR);
    await sleep(50);
    expect(await remaining()).toBe(claims + 2);
    await s.shutdown();
  });
});

describe.each(CLIENTS)('a stuck database (%s)', (kind) => {
  it('costs statementTimeoutMs, then 503; the late claim is given back and the retry runs once', async () => {
    const s = await store(kind, { statementTimeoutMs: 300 });
    const runs: string[] = [];
    const receiver = createReceiver({
      secret,
      store: s,
      respond: 'after-handlers',
      logger: { warn() {}, error() {} },
    });
    receiver.on('message.delivered', (event) => void runs.push(event.id));
    await s.init();
    const d = createTestDelivery('message.delivered', { secret });
    // Another session holds the table: every statement on it waits, as on a stalled server.
    const locker = await pool.connect();
    await locker.query('BEGIN');
    await locker.query(`LOCK TABLE ${s.table} IN ACCESS EXCLUSIVE MODE`);
    const started = Date.now();
    const res = await receiver.handle({ rawBody: d.body, headers: d.headers });
    expect(res.status).toBe(503);
    expect(JSON.parse(res.body).error.code).toBe('store_unavailable');
    expect(Date.now() - started).toBeLessThan(1500);
    expect(runs).toEqual([]);
    await locker.query('COMMIT');
    locker.release();
    // The waiting claim lands now and wins; the store gives it back, so the service's retry is not told
    // 409 for the whole lease (5 min). Retry as the service would: an absent row proves nothing
    // while the late claim may still be on its way.
    await vi.waitFor(
      async () => expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200),
      { timeout: 5000, interval: 50 },
    );
    expect(runs).toEqual([d.event.id]);
    expect((await row(s.table, d.event.id))?.state).toBe('completed');
  });
});
