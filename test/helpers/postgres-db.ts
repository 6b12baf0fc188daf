import { randomBytes } from 'node:crypto';
import pg from 'pg';
import postgres from 'postgres';

export { sleep } from './index.js';

/**
 * The server the tests use: the machine's PostgreSQL (127.0.0.1:5432, trust auth) unless POSTGRES_URL
 * names another. Each test file makes its own database there and drops it at the end.
 */
export const SERVER_URL = process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function urlFor(database: string, base = SERVER_URL): string {
  const url = new URL(base);
  url.pathname = `/${database}`;
  return url.toString();
}

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

async function admin<T>(base: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A new, empty database named after the test file; `drop()` removes it, closing what is still connected. */
export async function createDatabase(label: string, base = SERVER_URL): Promise<TestDatabase> {
  const name = `smswh_${label.replace(/\W+/g, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
  await admin(base, (c) => c.query(`CREATE DATABASE ${name}`));
  return {
    name,
    url: urlFor(name, base),
    // pg's pool.end() resolves before its connections have closed: a plain DROP waits (up to 5 s) for
    // those backends to exit. Forcing at once could kill one mid-exit, and its 'error' reaches a pool
    // that is no longer listening. FORCE only for what is really still connected.
    drop: () =>
      admin(base, async (c) => {
        try {
          await c.query(`DROP DATABASE IF EXISTS ${name}`);
        } catch {
          await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        }
      }),
  };
}

export const CLIENTS = ['pg', 'postgres.js'] as const;
export type ClientKind = (typeof CLIENTS)[number];

/** A pg Pool whose idle clients' errors (a server restart) are swallowed rather than crash the process. */
export function pgPool(url: string, options: pg.PoolConfig = {}): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 10, ...options });
  pool.on('error', () => {});
  return pool;
}

export function postgresJs(url: string, options: postgres.Options<{}> = {}): postgres.Sql {
  return postgres(url, { max: 10, onnotice: () => {}, ...options });
}

export const secret = 'whsec_postgres0123456789abcdef01234567';
