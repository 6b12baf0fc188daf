import { runDedupeStoreContract } from '@sms-webhooks/core/testing';
import { PostgresStore } from '@sms-webhooks/postgres';
import {
  createDatabase,
  pgPool,
  postgresJs,
  type TestDatabase,
} from '@sms-webhooks/test-helpers/postgres-db';
import type pg from 'pg';
import type postgres from 'postgres';

let db: TestDatabase;
let pool: pg.Pool;
let sql: postgres.Sql;

// A table per run: the contract reuses a fixed long key (kept an hour), so runs sharing a table would
// find each other's records.
const TABLES = ['contract_pg', 'contract_postgres_js', 'contract_unprepared', 'contract_query'];

beforeAll(async () => {
  db = await createDatabase('contract');
  pool = pgPool(db.url);
  sql = postgresJs(db.url);
  for (const table of TABLES) await new PostgresStore({ pool, table }).migrate();
});

afterAll(async () => {
  await pool?.end();
  await sql?.end();
  await db?.drop();
});

runDedupeStoreContract('PostgresStore (pg)', () => new PostgresStore({ pool, table: 'contract_pg' }), {
  order: true,
});
runDedupeStoreContract(
  'PostgresStore (postgres.js)',
  () => new PostgresStore({ sql, table: 'contract_postgres_js' }),
  { order: true },
);
runDedupeStoreContract(
  'PostgresStore (pg, unprepared)',
  () => new PostgresStore({ pool, prepare: false, table: 'contract_unprepared' }),
);
// The plain query form, as the README shows it for a client the store does not know.
runDedupeStoreContract(
  'PostgresStore (query)',
  () => new PostgresStore({ query: (text, values) => pool.query(text, values), table: 'contract_query' }),
);
