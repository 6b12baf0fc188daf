import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createReceiver, createTestDelivery, type HandlerContext } from '@sms-webhooks/core';
import { PostgresStore } from '@sms-webhooks/postgres';
import {
  createDatabase,
  pgPool,
  postgresJs,
  secret,
  type TestDatabase,
} from '@sms-webhooks/test-helpers/postgres-db';
import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import type postgres from 'postgres';
import { codeBlocks } from './markdown-blocks.js';
import { root } from './run-blocks.js';

// The postgres README's "In a transaction you open" block is fragments of a handler: `event`, `ctx`,
// `pool`, `sql`, `db` and `store` are the app's. Each fragment this workspace can run (pg, postgres.js,
// Kysely; Prisma and Drizzle are not installed) runs here as written, as the body of a real handler.

const README = 'packages/postgres/README.md';
const SECTION = 'In a transaction you open: Prisma, Drizzle, Kysely, your own';
const RUN = ['pg', 'postgres.js', 'Kysely'] as const;

interface Scope {
  event: { data: { id: string } };
  ctx: Pick<HandlerContext, 'claim'>;
  pool: pg.Pool;
  sql: postgres.Sql;
  // biome-ignore lint/suspicious/noExplicitAny: the README's Kysely lines name no table types
  db: Kysely<any>;
  store: PostgresStore<pg.PoolClient>;
}

/** The block's fragments by their first word (`// pg, your own …` → pg), each as an importable handler body. */
function fragments(): Map<string, string> {
  const block = codeBlocks(readFileSync(join(root, README), 'utf8')).find((b) => b.section === SECTION);
  if (!block) throw new Error(`${README}: no code block under "${SECTION}"`);
  expect(block.directive.kind).toBe('skip');
  const found = new Map<string, string>();
  for (const part of block.code.split(/\n\n(?=\/\/ )/)) {
    const name = /^\/\/ ([\w.]+)/.exec(part)![1]!;
    const lines = part.split('\n');
    // Imports move to the top of the module; the rest becomes the handler's body.
    const imports = lines.filter((l) => l.startsWith('import '));
    const body = lines.filter((l) => !l.startsWith('import '));
    found.set(
      name,
      `${imports.join('\n')}\nexport default async function ({ event, ctx, pool, sql, db, store }: any) {\n${body.join('\n')}\n}\n`,
    );
  }
  return found;
}

let database: TestDatabase;
let pool: pg.Pool;
let kyselyPool: pg.Pool;
let sql: postgres.Sql;
let db: Kysely<unknown>;
let store: PostgresStore<pg.PoolClient>;
const handlers = new Map<string, (scope: Scope) => Promise<void>>();

beforeAll(async () => {
  database = await createDatabase('docs_transactions');
  pool = pgPool(database.url);
  kyselyPool = pgPool(database.url);
  sql = postgresJs(database.url);
  db = new Kysely({ dialect: new PostgresDialect({ pool: kyselyPool }) });
  store = new PostgresStore({ pool });
  await store.migrate();
  await pool.query('CREATE TABLE deliveries (message_id text NOT NULL, delivered_at timestamptz)');
  const dir = join(root, 'test', '.tmp', 'docs', `fragments-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  for (const [name, code] of fragments()) {
    const file = join(dir, `${name.replace(/\W/g, '-')}.ts`);
    writeFileSync(file, code);
    if ((RUN as readonly string[]).includes(name)) {
      handlers.set(name, (await import(pathToFileURL(file).href)).default);
    }
  }
});

afterAll(async () => {
  await db?.destroy();
  await sql?.end();
  await pool?.end();
  await database?.drop();
});

const rowsFor = async (messageId: string) =>
  (await pool.query('SELECT 1 FROM deliveries WHERE message_id = $1', [messageId])).rowCount;

it('finds every fragment of the block, and the ones it runs', () => {
  expect([...fragments().keys()]).toEqual(['pg', 'postgres.js', 'Prisma', 'Kysely', 'Drizzle']);
  expect([...handlers.keys()]).toEqual([...RUN]);
});

describe.each(RUN)('the %s fragment', (name) => {
  const run = (scope: Pick<Scope, 'event' | 'ctx'>) =>
    handlers.get(name)!({ ...scope, pool, sql, db: db as Scope['db'], store });

  it('as a handler: an event delivered three times writes one row and completes the record', async () => {
    const receiver = createReceiver({ secret, store, respond: 'after-handlers' });
    receiver.on('message.delivered', (event, ctx) => run({ event, ctx }));
    const d = createTestDelivery('message.delivered', { secret });
    const answers: string[] = [];
    for (let i = 0; i < 3; i++) {
      answers.push((await receiver.handle({ rawBody: d.body, headers: d.headers })).body);
    }
    expect(answers.map((a) => JSON.parse(a))).toEqual([
      { received: true },
      { received: true, duplicate: true },
      { received: true, duplicate: true },
    ]);
    expect(await rowsFor(d.event.data.id)).toBe(1);
    const record = await pool.query('SELECT state FROM sms_webhook_events WHERE key = $1', [d.event.id]);
    expect(record.rows).toEqual([{ state: 'completed' }]);
    await receiver.close();
  });

  it('with a claim it no longer holds: rejects with CLAIM_LOST and its row is rolled back', async () => {
    const messageId = `msg_lost_${name.replace(/\W/g, '')}`;
    const ctx = { claim: { key: `evt_never_claimed_${name}`, token: 'not-the-owner' } };
    await expect(run({ event: { data: { id: messageId } }, ctx })).rejects.toMatchObject({
      code: 'ERR_SMS_POSTGRES_CLAIM_LOST',
    });
    expect(await rowsFor(messageId)).toBe(0);
  });
});
