import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jobIdFor } from '@sms-webhooks/bullmq';
import { createTestDelivery } from '@sms-webhooks/core';
import { createDatabase, type TestDatabase } from '@sms-webhooks/test-helpers/postgres-db';
import { startRedisServer } from '@sms-webhooks/test-helpers/redis-server';
import amqp from 'amqplib';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { freePort } from './free-port.js';
import { codeBlocks } from './markdown-blocks.js';
import type { ReadmeContext, ReadmeUnderTest } from './readmes.js';
import { type BlockResult, root } from './run-blocks.js';

const secret = (name: string) => `whsec_docs_${name.replace(/\W/g, '_')}_0123456789abcdef`;

/** Polls until `check` returns something truthy; fails saying `what` after `timeoutMs`. */
async function waitFor<T>(check: () => Promise<T>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The stdout of every block that ran, in order. */
const allOutput = (results: BlockResult[]) => results.map((r) => r.stdout).join('');

/** A redis-server of the README's own, given as REDIS_URL; the app's port, a free one, as PORT. */
async function withRedis(
  name: string,
  check: (redis: Redis, results: BlockResult[], env: Record<string, string>) => Promise<void>,
  extraEnv: Record<string, string> = {},
): Promise<ReadmeContext> {
  const server = await startRedisServer({ local: true });
  const redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
  return {
    env: {
      REDIS_URL: server.url,
      SMS_WEBHOOK_SECRET: secret(name),
      PORT: String(await freePort()),
      ...extraEnv,
    },
    check: (results, env) => check(redis, results, env),
    async close() {
      redis.disconnect();
      await server.stop();
    },
  };
}

/**
 * A database of the README's own, given as DATABASE_URL, and a free PORT for its app; `query` runs on
 * the database for the check.
 */
async function withDatabase(
  name: string,
  check: (query: (text: string) => Promise<pg.QueryResult>, results: BlockResult[]) => Promise<void>,
): Promise<ReadmeContext> {
  const db: TestDatabase = await createDatabase(`docs_${name}`);
  return {
    env: { DATABASE_URL: db.url, SMS_WEBHOOK_SECRET: secret(name), PORT: String(await freePort()) },
    async check(results) {
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        await check((text) => client.query(text), results);
      } finally {
        await client.end();
      }
    },
    close: () => db.drop(),
  };
}

/** The code of a README block marked as an excerpt of `file`, found there word for word (re-indented). */
function expectExcerptOf(readme: string, section: string, file: string): void {
  const block = codeBlocks(readFileSync(join(root, readme), 'utf8')).find(
    (b) => b.section === section && b.directive.kind === 'skip',
  );
  expect(block, `a skipped excerpt under ${section}`).toBeDefined();
  const source = readFileSync(join(root, file), 'utf8');
  const indented = (code: string, by: string) =>
    code
      .split('\n')
      .map((l) => (l ? by + l : l))
      .join('\n');
  expect(['', '  ', '    '].some((by) => source.includes(indented(block!.code, by)))).toBe(true);
}

/** The dedupe record of `eventId` under the store's default prefix, once it reads `c:` (completed). */
function completedInRedis(redis: Redis, eventId: string): Promise<string | null> {
  return waitFor(async () => {
    const value = await redis.get(`sms-webhooks:id:${eventId}`);
    return value?.startsWith('c:') ? value : null;
  }, `the dedupe record of ${eventId} to be completed`);
}

/**
 * The delivery `npx sms-webhooks send` printed was accepted, queued on `sms-webhooks` and run by a worker
 * (`workers` of them connected), and the worker completed its dedupe record.
 */
async function expectQueued(
  redis: Redis,
  results: BlockResult[],
  env: Record<string, string>,
  workers: number,
) {
  const sent = allOutput(results);
  expect(sent).toMatch(/\b200\b/);
  const eventId = /\b(evt_\w+)/.exec(sent)![1]!;
  const queue = new Queue('sms-webhooks', { connection: { url: env.REDIS_URL! } });
  try {
    expect(await queue.getWorkersCount()).toBe(workers);
    await waitFor(
      async () => (await queue.getJob(jobIdFor(eventId)))?.finishedOn,
      `the job of ${eventId} to finish`,
    );
    expect(await (await queue.getJob(jobIdFor(eventId)))!.getState()).toBe('completed');
  } finally {
    await queue.close();
  }
  await completedInRedis(redis, eventId);
}

/**
 * An example app started by its README: the README's own send block must be answered 200. Its blocks
 * read `PORT` (and any of `morePorts`, for a second server), each set to a free port here.
 */
function exampleApp(
  name: string,
  extra?: (env: Record<string, string>, results: BlockResult[]) => Promise<void>,
  morePorts: string[] = [],
): ReadmeUnderTest {
  return {
    path: `examples/${name}/README.md`,
    async setup() {
      const ports: Record<string, string> = {};
      for (const variable of ['PORT', ...morePorts]) ports[variable] = String(await freePort());
      return {
        env: { SMS_WEBHOOK_SECRET: secret(name), ...ports },
        async check(results, env) {
          expect(allOutput(results)).toMatch(/^200 \{"received":true\}$/m);
          await extra?.(env, results);
        },
        close: async () => {},
      };
    },
  };
}

const AMQP_URL = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

/**
 * The shared RabbitMQ (AMQP_URL) with a queue name of this run's own (SMS_WEBHOOKS_QUEUE), on top of
 * withRedis for the store; its queues and exchange are deleted at the end.
 */
async function withRabbitmq(
  name: string,
  check: (redis: Redis, results: BlockResult[], env: Record<string, string>) => Promise<void>,
  extraEnv: Record<string, string> = {},
): Promise<ReadmeContext> {
  const queue = `sms-docs-${name}-${process.pid}-${Date.now()}`;
  const context = await withRedis(name, check, { AMQP_URL, SMS_WEBHOOKS_QUEUE: queue, ...extraEnv });
  return {
    ...context,
    async close() {
      const connection = await amqp.connect(AMQP_URL);
      try {
        const channel = await connection.createChannel();
        const waits = [1, 2, 4, 8, 16, 32, 64].map((s) => `${queue}.retry.${s * 2000}`);
        for (const q of [queue, `${queue}.failed`, ...waits]) await channel.deleteQueue(q);
        await channel.deleteExchange(`${queue}.dead-letter`);
      } finally {
        await connection.close();
        await context.close();
      }
    },
  };
}

/** A signed delivery to `url`, with the README's secret; resolves with the answer. */
async function deliver(url: string, env: Record<string, string>, type = 'message.delivered' as const) {
  const d = createTestDelivery(type, { secret: env.SMS_WEBHOOK_SECRET! });
  const res = await fetch(url, { method: 'POST', headers: d.headers, body: d.body });
  return { status: res.status, body: await res.text(), event: d.event };
}

/** The store and queue packages' READMEs and the examples' (kept apart from readmes.ts so each can grow alone). */
export const STORE_READMES: ReadmeUnderTest[] = [
  {
    path: 'packages/redis/README.md',
    setup: () =>
      withRedis('redis', async (redis, results) => {
        // The "send it twice" block: accepted, then a duplicate (or in flight, if the first still ran).
        const sent = results.find((r) => r.block.section === 'Use')!.stdout;
        expect(sent).toMatch(
          /^200 \{"received":true\}\n(200 \{"received":true,"duplicate":true\}|409 .*in_flight.*)\n$/,
        );
        const keys = await redis.keys('sms-webhooks:id:*');
        expect(keys).toHaveLength(1);
        await completedInRedis(redis, keys[0]!.slice('sms-webhooks:id:'.length));
        // The contract, run with node:test against this Redis: every row passed.
        const contract = results.find((r) => r.block.section === 'Testing your own setup')!.stdout;
        expect(contract).toMatch(/^# pass [1-9]\d*$/m);
        expect(contract).toMatch(/^# fail 0$/m);
      }),
  },
  {
    path: 'packages/postgres/README.md',
    setup: () =>
      withDatabase('postgres', async (query, results) => {
        // The "send it three times" block: accepted, then duplicates, and one row written.
        const sent = results.find((r) => r.block.section === 'Use')!.stdout;
        expect(sent).toMatch(
          /^200 \{"received":true\}\n(200 \{"received":true,"duplicate":true\}\n){2}1 row for msg_\w+\n$/,
        );
        expect((await query('SELECT message_id FROM deliveries')).rows).toHaveLength(1);
        const records = await query('SELECT state FROM sms_webhook_events');
        expect(records.rows).toEqual([{ state: 'completed' }]);
        const contract = results.find((r) => r.block.section === 'Testing your own setup')!.stdout;
        expect(contract).toMatch(/^# pass [1-9]\d*$/m);
        expect(contract).toMatch(/^# fail 0$/m);
      }),
  },
  {
    path: 'packages/bullmq/README.md',
    setup: () =>
      withRedis(
        'bullmq',
        async (redis, results, env) => {
          await expectQueued(redis, results, env, 1);
          // The failed-jobs blocks: none failed.
          expect(allOutput(results)).toMatch(/^0 failed event\(s\)\nNo failed events\.$/m);
        },
        {
          SMS_WEBHOOKS_STATE_FILE: `${process.cwd()}/test/.tmp/docs/state-bullmq-${process.pid}.json`,
        },
      ),
  },
  {
    path: 'packages/pg-boss/README.md',
    setup: () =>
      withDatabase('pg_boss', async (query, results) => {
        // The send block: accepted once the transaction committed; the worker ran the job and completed
        // the dedupe record; the failed-jobs blocks found none.
        const sent = allOutput(results);
        expect(sent).toMatch(/\b200\b/);
        const eventId = /\b(evt_\w+)/.exec(sent)![1]!;
        await waitFor(
          async () =>
            (await query(`SELECT state FROM pgboss.job WHERE data->'event'->>'id' = '${eventId}'`)).rows[0]
              ?.state === 'completed',
          `the job of ${eventId} to complete`,
        );
        const records = await query('SELECT key, state FROM sms_webhook_events');
        expect(records.rows).toEqual([{ key: eventId, state: 'completed' }]);
        expect(sent).toMatch(/^0 failed event\(s\)$/m);
        expect(sent).toMatch(/^No failed events\.$/m);
      }),
  },
  {
    path: 'packages/rabbitmq/README.md',
    setup: () =>
      withRabbitmq(
        'rabbitmq',
        async (redis, results) => {
          // The send block: answered 200 once confirmed; the worker ran it and completed the dedupe
          // record; the failed-event blocks found none.
          const sent = allOutput(results);
          expect(sent).toMatch(/\b200\b/);
          const eventId = /\b(evt_\w+)/.exec(sent)![1]!;
          await completedInRedis(redis, eventId);
          expect(sent).toMatch(/^0 failed event\(s\)$/m);
          expect(sent).toMatch(/^No failed events\.$/m);
        },
        { SMS_WEBHOOKS_STATE_FILE: `${process.cwd()}/test/.tmp/docs/state-rabbitmq-${process.pid}.json` },
      ),
  },
  exampleApp('express'),
  exampleApp('fastify'),
  exampleApp('koa'),
  exampleApp('hono', async (_env, results) => {
    // The route run in process with app.request: accepted, and its message.failed handler ran.
    const inProcess = results.filter((r) => r.block.section === 'The route, in Hono').at(-1)!.stdout;
    expect(inProcess).toMatch(/^200 \{"received":true\}\n\+\d+ failed: \w+\n$/);
  }),
  exampleApp(
    'nestjs',
    async (env) => {
      // The README's second server, on Fastify (on FASTIFY_PORT): it accepts a signed delivery too.
      const answer = await deliver(`http://localhost:${env.FASTIFY_PORT}/webhooks/sms`, env);
      expect(answer.status, answer.body).toBe(200);
    },
    ['FASTIFY_PORT'],
  ),
  exampleApp('observability', async (env) => {
    const metrics = await (await fetch(`http://localhost:${env.PORT}/metrics`)).text();
    expect(metrics).toMatch(
      /^sms_webhooks_deliveries_total\{[^}]*sms_webhooks_outcome="received"[^}]*\} 1$/m,
    );
  }),
  {
    path: 'examples/demo/README.md',
    async setup() {
      return {
        env: {},
        check(results) {
          const demo = allOutput(results);
          expect(demo).toMatch(/^ {2}handlers ran for the duplicate: no$/m);
          expect(demo).toMatch(
            /^Demo finished in [\d.]+ s: every event delivered, one retried, the duplicate dropped\.$/m,
          );
        },
        close: async () => {},
      };
    },
  },
  {
    path: 'examples/lambda/README.md',
    async setup() {
      return {
        env: { SMS_WEBHOOK_SECRET: secret('lambda') },
        check(results) {
          const run = allOutput(results);
          expect(run).toMatch(/^message\.delivered evt_\w+: message msg_\w+ to \+\d+ \(attempt 1\)$/m);
          expect(run).toMatch(/^delivery: 200 \{"received":true\}$/m);
          expect(run).toMatch(/^redelivery: 200 \{"received":true,"duplicate":true\}$/m);
          expect(run).toMatch(/^forged: 400 \{"error":\{"code":"signature_mismatch"/m);
        },
        close: async () => {},
      };
    },
  },
  {
    // Its blocks need Wrangler or a Cloudflare account, so each is skipped with its reason; the Worker they
    // run is run on workerd by test/adapters/examples.test.ts.
    path: 'examples/cloudflare-workers/README.md',
    async setup() {
      return { env: {}, close: async () => {} };
    },
  },
  {
    path: 'examples/multi-instance/README.md',
    async setup() {
      // No REDIS_URL: the README's command starts a redis-server of its own. No SMS_WEBHOOK_SECRET
      // either: start.ts signs with the development secret whatever the instances are given.
      return {
        env: {},
        check(results) {
          const run = allOutput(results);
          expect(run.match(/^\[start\] evt_\S+ .* a: .* b: /gm)).toHaveLength(12);
          expect(run).toMatch(/^\[start\] 12 events, 24 deliveries: .*; each event handled exactly once$/m);
        },
        close: async () => {},
      };
    },
  },
  {
    path: 'examples/bullmq/README.md',
    setup: async () =>
      withRedis(
        'example-bullmq',
        // `start` only printed its "running" line once its worker handled the demo's event; then the
        // pieces, the receiver on RECEIVER_PORT (another free port) and a worker of their own.
        (redis, results, env) => expectQueued(redis, results, env, 2),
        {
          SMS_WEBHOOKS_STATE_FILE: `${process.cwd()}/test/.tmp/docs/state-bullmq-${process.pid}.json`,
          RECEIVER_PORT: String(await freePort()),
        },
      ),
  },
  {
    path: 'examples/rabbitmq/README.md',
    setup: async () =>
      withRabbitmq(
        'example-rabbitmq',
        // `start` printed its "running" line once its worker handled the demo's event (on a queue of
        // its own); then the pieces, on SMS_WEBHOOKS_QUEUE: the send block's event is done in Redis.
        async (redis, results) => {
          const sent = results.at(-1)!.stdout;
          expect(sent).toMatch(/\b200\b/);
          await completedInRedis(redis, /\b(evt_\w+)/.exec(sent)![1]!);
        },
        {
          SMS_WEBHOOKS_STATE_FILE: `${process.cwd()}/test/.tmp/docs/state-rabbitmq-${process.pid}.json`,
          RECEIVER_PORT: String(await freePort()),
        },
      ),
  },
  {
    path: 'examples/postgres/README.md',
    setup: () =>
      withDatabase('example_postgres', async (query, results) => {
        // Three deliveries of one event: each answered 200, one row (GET /messages shows it too).
        const sent = allOutput(results);
        expect(sent.match(/^200 \{"received":true(,"duplicate":true)?\}$/gm)).toHaveLength(3);
        const rows = JSON.parse(sent.slice(sent.lastIndexOf('\n[')).trim());
        expect(rows).toHaveLength(1);
        const stored = await query('SELECT event_id FROM delivered_messages');
        expect(stored.rows).toEqual([{ event_id: rows[0].event_id }]);
        expectExcerptOf('examples/postgres/README.md', 'example-postgres', 'examples/postgres/app.ts');
      }),
  },
];
