/**
 * The Express adapter with a PostgresStore, in its own process, for the postgres suite:
 * `node --import tsx postgres-server.ts '<{ url, client, maxBodyBytes, handlerDelayMs }>'`. Speaks the
 * bench servers' IPC ('ready', 'stats', 'close'), plus 'statements': how many the store has sent.
 */
import type { Server } from 'node:http';
import { PostgresStore } from '@sms-webhooks/postgres';
import pg from 'pg';
import postgres from 'postgres';
import { serveParent, startChild } from '../lib/bench-child.js';
import { counters, makeReceiver, type ServerConfig } from '../servers/contenders.js';
import { expressApp } from '../servers/express-app.js';

interface Config {
  url: string;
  client: 'pg' | 'postgres.js';
  maxBodyBytes: number;
  handlerDelayMs?: number;
}

const config = JSON.parse(process.argv[2] ?? '{}') as Config;
let statements = 0;

async function main(): Promise<void> {
  let store: PostgresStore<unknown>;
  let close: () => Promise<void>;
  if (config.client === 'pg') {
    const pool = new pg.Pool({ connectionString: config.url, max: 16 });
    pool.on('error', () => {});
    const query = pool.query.bind(pool) as (...a: unknown[]) => Promise<unknown>;
    (pool as { query: unknown }).query = (...a: unknown[]) => {
      statements++;
      return query(...a);
    };
    store = new PostgresStore({ pool }) as PostgresStore<unknown>;
    close = () => pool.end();
  } else {
    const sql = postgres(config.url, { max: 16, onnotice: () => {} });
    const unsafe = sql.unsafe.bind(sql);
    (sql as { unsafe: unknown }).unsafe = (...a: Parameters<typeof unsafe>) => {
      statements++;
      return unsafe(...a);
    };
    store = new PostgresStore({ sql }) as PostgresStore<unknown>;
    close = () => sql.end({ timeout: 2 });
  }
  const serverConfig: ServerConfig = {
    framework: 'express',
    contender: 'ours',
    store: 'memory',
    maxBodyBytes: config.maxBodyBytes,
    handlerDelayMs: config.handlerDelayMs,
  };
  const receiver = makeReceiver(serverConfig, store);
  await store.init();
  const server: Server = await expressApp('ours', receiver, config.maxBodyBytes).listen();
  serveParent({
    server,
    replies: {
      stats: () => ({ type: 'stats', ...counters }),
      statements: () => ({ type: 'statements', statements }),
    },
    async close() {
      await receiver.close(2000);
      await close();
    },
  });
}

startChild(main);
