import { createServer, type Server } from 'node:http';
import { createReceiver, type Logger, type Receiver } from '@sms-webhooks/core';
import { webhookMiddleware } from '@sms-webhooks/express';
import { PostgresStore } from '@sms-webhooks/postgres';
import express, { type Express } from 'express';
import type pg from 'pg';

export interface ExampleOptions {
  secret: string | string[];
  pool: pg.Pool;
  /** Where the app says what it stored (and the receiver's warnings). Default console.log. */
  log?: (line: string) => void;
}

export interface ExampleApp {
  app: Express;
  receiver: Receiver;
  store: PostgresStore<pg.PoolClient>;
  /** A Node server for `app`, not yet listening. */
  server: Server;
}

/**
 * The app's own table. No unique key on purpose: the transaction below is what keeps each delivered
 * message to one row, however often and wherever the service delivers it.
 */
export const MESSAGES_TABLE = `CREATE TABLE IF NOT EXISTS delivered_messages (
  event_id text NOT NULL,
  message_id text NOT NULL,
  recipient text NOT NULL,
  delivered_at timestamptz NOT NULL
)`;

/** Creates the dedupe table and the app's table if they are missing. */
export async function migrate(pool: pg.Pool): Promise<void> {
  await new PostgresStore({ pool }).migrate();
  await pool.query(MESSAGES_TABLE);
}

export function createApp({ secret, pool, log = console.log }: ExampleOptions): ExampleApp {
  const logger: Logger = {
    warn: (...args) => log(`warn: ${args.join(' ')}`),
    error: (...args) => log(`error: ${args.join(' ')}`),
  };
  const store = new PostgresStore({ pool });
  // 'after-handlers': the service gets its 200 once the row is committed, and retries otherwise.
  const receiver = createReceiver({ secret, store, respond: 'after-handlers', logger });

  receiver.on('message.delivered', async (event, ctx) => {
    // The INSERT and the dedupe record commit together: exactly one row per event, even if the
    // process dies halfway and the service delivers the event again.
    await store.transaction(ctx, async (tx) => {
      await tx.query(
        'INSERT INTO delivered_messages (event_id, message_id, recipient, delivered_at) VALUES ($1, $2, $3, $4)',
        [event.id, event.data.id, event.data.to, event.created_at],
      );
    });
    log(`stored ${event.id}: message ${event.data.id} to ${event.data.to}`);
  });
  receiver.onError((error) => log(`error: handler failed for ${error.event.id}: ${error.message}`));

  const app = express();
  app.all('/webhooks/sms', webhookMiddleware(receiver));
  app.get('/messages', async (_req, res) => {
    const { rows } = await pool.query(
      'SELECT event_id, message_id, recipient, delivered_at FROM delivered_messages ORDER BY delivered_at',
    );
    res.json(rows);
  });
  return { app, receiver, store, server: createServer(app) };
}
