/**
 * One app instance in its own process, for the multi-instance and crash tests:
 * `instance.ts '<InstanceConfig json>'`, bundled and forked with IPC by service.ts. Express, the receiver in
 * 'after-handlers' mode and a PostgresStore; the handler writes the event's business row inside
 * store.transaction. The parent may ask it to die (SIGKILL, no clean-up) at a point in the handler of
 * one event: { type: 'crash', id, point }.
 */
import type { AddressInfo } from 'node:net';
import { createReceiver } from '@sms-webhooks/core';
import { webhookMiddleware } from '@sms-webhooks/express';
import { PostgresStore } from '@sms-webhooks/postgres';
import { type ClientKind, pgPool, postgresJs, secret } from '@sms-webhooks/test-helpers/postgres-db';
import express from 'express';
import type pg from 'pg';
import type postgres from 'postgres';

export const CRASH_POINTS = [
  'before-write',
  'during-write',
  'after-write',
  'before-commit',
  'during-commit',
  'after-commit',
] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

export interface InstanceConfig {
  name: string;
  url: string;
  client: ClientKind;
  /** The business table: (event_id text, instance text), deliberately without a unique key. */
  table: string;
  leaseMs: number;
  /** The handler waits up to this long (random) inside its transaction, to widen the windows. */
  jitterMs?: number;
  /**
   * synchronous_commit=off for this instance's sessions: commits stop waiting for the disk. Only a
   * server crash could lose the last ones, which the tests on the shared server never cause.
   */
  fastCommits?: boolean;
  /** The store's statementTimeoutMs (default 2000). */
  statementTimeoutMs?: number;
  /** The receiver's `order: true`: message.sent and message.delivered of one message, latest wins. */
  order?: boolean;
}

const config = JSON.parse(process.argv[2] ?? '{}') as InstanceConfig;
const crashes = new Map<string, CrashPoint>();
let commitCrash: { point: CrashPoint } | undefined;

function die(): never {
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable');
}

let store: PostgresStore<pg.PoolClient> | PostgresStore<postgres.TransactionSql>;
let insert: (tx: unknown, id: string) => Promise<unknown>;
const text = `INSERT INTO ${config.table} (event_id, instance) VALUES ($1, $2)`;
if (config.client === 'pg') {
  const pool = pgPool(config.url, {
    max: 20,
    ...(config.fastCommits ? { options: '-c synchronous_commit=off' } : {}),
  });
  // The store sends COMMIT through the client it checked out: dying right before or right after that
  // write is the window between the completed record and the commit.
  const connect = pool.connect.bind(pool) as (callback?: unknown) => Promise<pg.PoolClient>;
  (pool as { connect: unknown }).connect = async (callback?: unknown) => {
    if (callback) return connect(callback); // pool.query's own checkout
    const client = await connect();
    const query = client.query.bind(client) as (...a: unknown[]) => Promise<unknown>;
    (client as { query: unknown }).query = (...args: unknown[]) => {
      const isCommit = (args[0] as { text?: string })?.text === 'COMMIT';
      if (isCommit && commitCrash?.point === 'before-commit') die();
      const result = query(...args);
      if (isCommit && commitCrash?.point === 'during-commit') die();
      return result;
    };
    return client;
  };
  store = new PostgresStore({ pool, statementTimeoutMs: config.statementTimeoutMs });
  insert = (tx, id) => (tx as pg.PoolClient).query(text, [id, config.name]);
} else {
  const sql = postgresJs(config.url, {
    max: 20,
    ...(config.fastCommits ? { connection: { synchronous_commit: 'off' } } : {}),
  });
  store = new PostgresStore({ sql, statementTimeoutMs: config.statementTimeoutMs });
  insert = (tx, id) => (tx as postgres.TransactionSql).unsafe(text, [id, config.name]);
}

const quiet = { warn() {}, error() {} };
const receiver = createReceiver({
  secret,
  store,
  respond: 'after-handlers',
  leaseMs: config.leaseMs,
  logger: quiet,
  order: config.order === true,
});
const jitter = () =>
  config.jitterMs ? new Promise((r) => setTimeout(r, Math.random() * config.jitterMs!)) : undefined;

receiver.on(['message.delivered', 'message.sent'], async (event, ctx) => {
  const point = crashes.get(event.id);
  await (store as PostgresStore<unknown>).transaction(ctx, async (tx) => {
    if (point === 'before-write') die();
    await jitter();
    const write = insert(tx, event.id);
    if (point === 'during-write') die();
    await write;
    if (point === 'after-write') die();
    await jitter();
    // postgres.js sends COMMIT inside begin(), out of reach: there, both points die as fn returns.
    if (point === 'before-commit' || point === 'during-commit') {
      if (config.client === 'pg') commitCrash = { point };
      else die();
    }
  });
  if (point === 'after-commit') die();
});

process.on('message', (message: { type: string; id: string; point: CrashPoint }) => {
  if (message.type === 'crash') crashes.set(message.id, message.point);
});

const app = express();
app.post('/webhooks', webhookMiddleware(receiver));
const server = app.listen(0, '127.0.0.1', () => {
  process.send?.({ type: 'ready', port: (server.address() as AddressInfo).port });
});
process.on('disconnect', () => process.exit(0));
