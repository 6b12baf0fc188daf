import { createReceiver, createTestDelivery } from '@sms-webhooks/core';
import { PostgresStore } from '@sms-webhooks/postgres';
import {
  createDatabase,
  pgPool,
  postgresJs,
  secret,
  type TestDatabase,
} from '@sms-webhooks/test-helpers/postgres-db';
import pg from 'pg';
import type postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const HOUR = 3_600_000;
let db: TestDatabase;
let pool: pg.Pool;
let sql: postgres.Sql;
let store: PostgresStore<pg.PoolClient>;
let n = 0;

beforeAll(async () => {
  db = await createDatabase('complete_in');
  pool = pgPool(db.url);
  sql = postgresJs(db.url);
  store = new PostgresStore({ pool, sweepIntervalMs: 0 });
  await store.migrate();
  await pool.query('CREATE TABLE effects (id text PRIMARY KEY)');
});

afterAll(async () => {
  await store?.shutdown();
  await pool?.end();
  await sql?.end();
  await db?.drop();
});

/** A fresh claim, as the receiver holds one while a handler runs. */
async function claimed() {
  const claim = { key: `evt_complete_in_${++n}`, token: `tok-${n}` };
  expect(await store.claim(claim.key, claim.token, HOUR)).toBe('claimed');
  return claim;
}

async function state(key: string): Promise<string | undefined> {
  const { rows } = await pool.query('SELECT state FROM sms_webhook_events WHERE key = $1', [key]);
  return rows[0]?.state;
}

async function effect(id: string): Promise<boolean> {
  return (await pool.query('SELECT 1 FROM effects WHERE id = $1', [id])).rowCount === 1;
}

const POOL_REFUSAL = {
  code: 'ERR_SMS_POSTGRES_OPTIONS',
  message: expect.stringMatching(
    /^@sms-webhooks\/postgres: completeIn\(ctx, tx\) was given a pg Pool, .*outside your transaction.*const client = await pool\.connect\(\); await client\.query\('BEGIN'\)/,
  ),
};
const SQL_REFUSAL = {
  code: 'ERR_SMS_POSTGRES_OPTIONS',
  message: expect.stringMatching(
    /^@sms-webhooks\/postgres: completeIn\(ctx, tx\) was given the top-level postgres\.js sql, .*outside your transaction.*sql\.begin\(async \(tx\) => \{ …; await store\.completeIn\(ctx, tx\) \}\)/,
  ),
};

describe('completeIn refuses a client that is not the transaction', () => {
  it('postgres.js: `completeIn(ctx, sql)` inside `sql.begin`: refused, the transaction rolls back, the claim stays', async () => {
    const claim = await claimed();
    await expect(
      sql.begin(async (tx) => {
        await tx`INSERT INTO effects (id) VALUES (${claim.key})`;
        await store.completeIn({ claim }, sql);
      }),
    ).rejects.toMatchObject(SQL_REFUSAL);
    expect([await effect(claim.key), await state(claim.key)]).toEqual([false, 'in-flight']);
  });

  it('pg: `completeIn(ctx, pool)` after BEGIN on a checked-out client: refused, rolled back, the claim stays', async () => {
    const claim = await claimed();
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('INSERT INTO effects (id) VALUES ($1)', [claim.key]);
      await expect(store.completeIn({ claim }, pool)).rejects.toMatchObject(POOL_REFUSAL);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    expect([await effect(claim.key), await state(claim.key)]).toEqual([false, 'in-flight']);
  });

  it('a handler that passes the pool: 500, and the redelivery runs it again rather than answering duplicate', async () => {
    const receiver = createReceiver({
      secret,
      store,
      respond: 'after-handlers',
      logger: { warn() {}, error() {} },
    });
    let runs = 0;
    receiver.on('message.delivered', async (event, ctx) => {
      runs++;
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('INSERT INTO effects (id) VALUES ($1)', [event.id]);
        await store.completeIn(ctx, pool);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      } finally {
        client.release();
      }
    });
    const d = createTestDelivery('message.delivered', { secret });
    const send = async () => {
      const res = await receiver.handle({ rawBody: d.body, headers: d.headers });
      return [res.status, JSON.parse(res.body).error?.code];
    };
    expect(await send()).toEqual([500, 'handler_failed']);
    expect(await send()).toEqual([500, 'handler_failed']);
    expect(runs).toBe(2);
    expect(await effect(d.event.id)).toBe(false);
    await receiver.close();
  });
});

describe('completeIn takes what does run on the transaction', () => {
  it('a pg PoolClient after BEGIN, a pg Client after BEGIN, a postgres.js tx, its savepoint, a reserved connection after BEGIN', async () => {
    const done: string[] = [];
    const pooled = await claimed();
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await store.completeIn({ claim: pooled }, client);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    done.push(pooled.key);

    const single = await claimed();
    const own = new pg.Client({ connectionString: db.url });
    await own.connect();
    try {
      await own.query('BEGIN');
      await store.completeIn({ claim: single }, own);
      await own.query('COMMIT');
    } finally {
      await own.end();
    }
    done.push(single.key);

    const inTx = await claimed();
    await sql.begin((tx) => store.completeIn({ claim: inTx }, tx));
    done.push(inTx.key);

    const inSavepoint = await claimed();
    await sql.begin((tx) => tx.savepoint((sp) => store.completeIn({ claim: inSavepoint }, sp)));
    done.push(inSavepoint.key);

    const reservedClaim = await claimed();
    const reserved = await sql.reserve();
    try {
      await reserved`BEGIN`;
      await store.completeIn({ claim: reservedClaim }, reserved);
      await reserved`COMMIT`;
    } finally {
      reserved.release();
    }
    done.push(reservedClaim.key);

    for (const key of done) expect([key, await state(key)]).toEqual([key, 'committed']);
  });

  it("the store's own transaction() still works over pg and postgres.js", async () => {
    const overSql = new PostgresStore({ sql, sweepIntervalMs: 0 });
    for (const s of [store, overSql]) {
      const claim = await claimed();
      await s.transaction({ claim }, async () => {});
      expect(await state(claim.key)).toBe('committed');
    }
    await overSql.shutdown();
  });
});
