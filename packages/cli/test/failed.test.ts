import { enqueueTo as bullmqEnqueue, createWorker as bullmqWorker } from '@sms-webhooks/bullmq';
import { createReceiver, createTestDelivery, type Receiver } from '@sms-webhooks/core';
import { createWorker as pgBossWorker } from '@sms-webhooks/pg-boss';
import { enqueueTo as rabbitEnqueue, createWorker as rabbitWorker } from '@sms-webhooks/rabbitmq';
import { RedisStore } from '@sms-webhooks/redis';
import { captureLogger, waitFor } from '@sms-webhooks/test-helpers';
import { createDatabase } from '@sms-webhooks/test-helpers/postgres-db';
import { type RedisServer, startRedisServer } from '@sms-webhooks/test-helpers/redis-server';
import amqp from 'amqplib';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { handOffReceiver, MAJORS, secret as pgBossSecret, useDatabase } from '../../pg-boss/test/set-up.js';
import { runCli } from './helpers.js';

const secret = 'whsec_failedcli0123456789abcdef0123456';

/** One event through the receiver whose handler fails on every attempt until healed. */
function failingHandlers(receiver: Receiver) {
  const state = { healthy: false, runs: [] as string[] };
  receiver.on('message.delivered', (event) => {
    state.runs.push(event.id);
    if (!state.healthy) throw new Error('downstream is down');
  });
  return state;
}

describe('sms-webhooks failed (bullmq)', () => {
  let server: RedisServer;
  const closers: Array<() => Promise<unknown>> = [];
  beforeAll(async () => {
    server = await startRedisServer({ local: true });
  });
  afterEach(async () => {
    for (const close of closers.reverse()) await close().catch(() => {});
    closers.length = 0;
  });
  afterAll(() => server?.stop());

  it('lists the failed event and replays it once; a second replay is refused', async () => {
    const { hostname, port } = new URL(server.url);
    const connection = { host: hostname, port: Number(port) };
    const queue = new Queue('sms-webhooks', { connection });
    closers.push(() => queue.close());
    const redis = new Redis(server.url);
    closers.push(() => redis.quit());
    const store = new RedisStore({ client: redis, clientType: 'ioredis' });
    const receiver = createReceiver({
      secret,
      store,
      logger: captureLogger(),
      dispatch: bullmqEnqueue(queue, { attempts: 2, backoff: 10 }),
    });
    // Routing only: a type without a handler is answered `ignored` and never queued.
    receiver.on('message.delivered', () => {});
    const workerSide = createReceiver({ secret, store, logger: captureLogger() });
    const handlers = failingHandlers(workerSide);
    const worker = bullmqWorker(workerSide, { connection });
    closers.push(() => worker.close());
    const d = createTestDelivery('message.delivered', { secret });
    expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
    await waitFor(async () => (await queue.getFailedCount()) === 1, 'the job to fail for good');

    const list = await runCli(['failed', 'list', '--redis-url', server.url]);
    expect(list).toMatchObject({ code: 0, stderr: '' });
    expect(list.stdout).toMatch(
      new RegExp(
        `^1 failed event\\(s\\):\\n${d.event.id}  message.delivered  2 attempt\\(s\\)  failed \\S+Z  .*downstream is down`,
      ),
    );
    const json = await runCli(['failed', 'list', '--engine', 'bullmq', '--json'], { REDIS_URL: server.url });
    expect(JSON.parse(json.stdout)).toMatchObject([{ eventId: d.event.id, attempts: 2 }]);

    handlers.healthy = true;
    const replay = await runCli(['failed', 'replay', d.event.id, '--redis-url', server.url]);
    expect(replay).toMatchObject({ code: 0, stderr: '' });
    expect(replay.stdout).toMatch(/^Replayed evt_\S+: job \S+ is back in the queue and runs once\.\n$/);
    await waitFor(() => handlers.runs.length === 3, 'the replay to run');
    await waitFor(async () => (await queue.getCompletedCount()) === 1, 'the replayed job to complete');
    expect(handlers.runs).toEqual([d.event.id, d.event.id, d.event.id]);
    const again = await runCli(['failed', 'replay', d.event.id, '--redis-url', server.url, '--json']);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stderr)).toMatchObject({ error: { code: 'job_not_failed' } });
    expect((await runCli(['failed', 'list', '--redis-url', server.url])).stdout).toBe('No failed events.\n');
  });
  it('shows control characters from a handler error escaped; --json keeps the text as it was', async () => {
    const { hostname, port } = new URL(server.url);
    const connection = { host: hostname, port: Number(port) };
    const queue = new Queue('sms-webhooks-controls', { connection });
    closers.push(() => queue.close());
    const redis = new Redis(server.url);
    closers.push(() => redis.quit());
    const store = new RedisStore({ client: redis, clientType: 'ioredis', prefix: 'controls' });
    const receiver = createReceiver({
      secret,
      store,
      logger: captureLogger(),
      dispatch: bullmqEnqueue(queue, { attempts: 1 }),
    });
    receiver.on('message.delivered', () => {});
    // A reply's text in a handler's error: retitle the terminal (OSC 0 … BEL), erase the line (CR,
    // CSI 2K, and CSI as the one C1 code point), a disguised hyperlink (OSC 8), a forged row, an RLO.
    const hostile =
      'bad reply \u001b]0;pwned\u0007\r\u001b[2Kall good \u009b31m' +
      '\u001b]8;;https://evil.example/\u001b\\click\u001b]8;;\u001b\\\nevt_forged  message.delivered  \u202etxt.exe';
    const workerSide = createReceiver({ secret, store, logger: captureLogger() });
    workerSide.on('message.delivered', () => {
      throw new Error(hostile);
    });
    const worker = bullmqWorker(workerSide, { connection, queue: 'sms-webhooks-controls' });
    closers.push(() => worker.close());
    const d = createTestDelivery('message.delivered', { secret });
    expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
    await waitFor(async () => (await queue.getFailedCount()) === 1, 'the job to fail for good');

    const args = ['failed', 'list', '--redis-url', server.url, '--queue', 'sms-webhooks-controls'];
    const list = await runCli(args);
    expect(list).toMatchObject({ code: 0, stderr: '' });
    // No control character reaches the terminal but the line ends of the two lines printed.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for.
    expect(list.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(list.stdout.split('\n')).toHaveLength(3);
    expect(list.stdout).toContain(
      'bad reply \\x1b]0;pwned\\x07\\r\\x1b[2Kall good \\x9b31m\\x1b]8;;https://evil.example/\\x1b\\click' +
        '\\x1b]8;;\\x1b\\\\nevt_forged  message.delivered  \\u202etxt.exe',
    );
    const json = await runCli([...args, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject([
      { eventId: d.event.id, error: expect.stringContaining(hostile) },
    ]);
  });
});

describe('sms-webhooks failed (pg-boss)', () => {
  // The CLI's peer range is pg-boss 10's.
  const db = useDatabase('cli_failed', MAJORS[0]!);

  it('lists the failed event and replays it once; an unknown event is job_not_found', async () => {
    const boss = await db.boss();
    const store = await db.store();
    await boss.createQueue('sms-webhooks');
    const { receiver } = handOffReceiver(boss, store, {
      queue: 'sms-webhooks',
      enqueue: { attempts: 2, retryDelaySeconds: 0, retryBackoff: false },
    });
    const workerSide = createReceiver({ secret, store, logger: captureLogger() });
    const handlers = failingHandlers(workerSide);
    const worker = await pgBossWorker(workerSide, boss, { pollingIntervalSeconds: 0.5 });
    db.onCleanup(() => worker.close());
    const d = createTestDelivery('message.delivered', { secret: pgBossSecret });
    expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
    const failedNow = async () =>
      (await runCli(['failed', 'list', '--database-url', db.url, '--json'])).stdout;
    await waitFor(async () => JSON.parse(await failedNow()).length === 1, 'the job to fail for good');
    expect(JSON.parse(await failedNow())).toMatchObject([
      { eventId: d.event.id, type: 'message.delivered', attempts: 2, archived: false },
    ]);

    handlers.healthy = true;
    const replay = await runCli(['failed', 'replay', d.event.id, '--engine', 'pg-boss'], {
      DATABASE_URL: db.url,
    });
    expect(replay).toMatchObject({ code: 0, stderr: '' });
    await waitFor(() => handlers.runs.length === 3, 'the replay to run');
    await waitFor(async () => (await failedNow()) === '[]\n', 'the failed list to empty');
    expect(await store.claim(d.event.id, 'probe', 1000)).toBe('completed');
    const unknown = await runCli(['failed', 'replay', 'evt_unknown', '--database-url', db.url]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no job for evt_unknown/);
  });
});

describe('sms-webhooks failed (rabbitmq)', () => {
  let server: RedisServer;
  const closers: Array<() => Promise<unknown>> = [];
  const amqpUrl = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
  beforeAll(async () => {
    server = await startRedisServer({ local: true });
  });
  afterEach(async () => {
    for (const close of closers.reverse()) await close().catch(() => {});
    closers.length = 0;
  });
  afterAll(() => server?.stop());

  it('lists the failed event and replays it once with the RedisStore; a second replay finds nothing', async () => {
    // A queue of this test's own on the shared broker, deleted afterwards.
    const queue = `sms-test-cli-${process.pid}-${Date.now()}`;
    const connection = await amqp.connect(amqpUrl);
    connection.on('error', () => {});
    closers.push(async () => {
      const channel = await connection.createChannel();
      for (const name of [queue, `${queue}.failed`, `${queue}.retry.10`]) await channel.deleteQueue(name);
      await channel.deleteExchange(`${queue}.dead-letter`);
      await connection.close();
    });
    const redis = new Redis(server.url);
    closers.push(() => redis.quit());
    const store = new RedisStore({ client: redis, clientType: 'ioredis' });
    const receiver = createReceiver({
      secret,
      store,
      logger: captureLogger(),
      dispatch: rabbitEnqueue(connection, { store, queue }),
    });
    receiver.on('message.delivered', () => {});
    const workerSide = createReceiver({ secret, store, logger: captureLogger() });
    const handlers = failingHandlers(workerSide);
    const worker = await rabbitWorker(workerSide, { connection, queue, attempts: 2, backoffMs: 10 });
    closers.push(() => worker.close());
    const d = createTestDelivery('message.delivered', { secret });
    expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
    const failedNow = async () =>
      JSON.parse(
        (await runCli(['failed', 'list', '--amqp-url', amqpUrl, '--queue', queue, '--json'])).stdout,
      );
    await waitFor(async () => (await failedNow()).length === 1, 'the event to fail for good');
    expect(await failedNow()).toMatchObject([
      { eventId: d.event.id, type: 'message.delivered', attempts: 2 },
    ]);
    const list = await runCli(['failed', 'list', '--amqp-url', amqpUrl, '--queue', queue]);
    expect(list.stdout).toMatch(
      new RegExp(`^1 failed event\\(s\\):\\n${d.event.id}  message.delivered  2 attempt\\(s\\)`),
    );

    handlers.healthy = true;
    const replay = await runCli(['failed', 'replay', d.event.id, '--engine', 'rabbitmq', '--queue', queue], {
      AMQP_URL: amqpUrl,
      REDIS_URL: server.url,
    });
    expect(replay).toMatchObject({ code: 0, stderr: '' });
    await waitFor(() => handlers.runs.length === 3, 'the replay to run');
    await waitFor(async () => (await store.claim(d.event.id, 'probe', 1000)) === 'completed', 'the record');
    const again = await runCli([
      'failed',
      'replay',
      d.event.id,
      '--amqp-url',
      amqpUrl,
      '--redis-url',
      server.url,
      '--queue',
      queue,
      '--json',
    ]);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stderr)).toMatchObject({ error: { code: 'job_not_found' } });
    expect(handlers.runs).toHaveLength(3);
  });

  it('replay without a store says which flag to pass; an unreachable broker is a clear error without the password', async () => {
    const res = await runCli(['failed', 'replay', 'evt_x', '--amqp-url', amqpUrl, '--json'], {
      REDIS_URL: '',
      DATABASE_URL: '',
    });
    expect(res.code).toBe(2);
    expect(JSON.parse(res.stderr)).toMatchObject({ error: { code: 'store_missing' } });
    const down = await runCli(['failed', 'list', '--amqp-url', 'amqp://guest:hunter2@127.0.0.1:1']);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/could not reach the rabbitmq queue/);
    expect(down.stderr).not.toMatch(/hunter2/);
  });
});

describe('sms-webhooks failed: mistakes', () => {
  it('without a connection it says which flag to pass (exit 2)', async () => {
    const res = await runCli(['failed', 'list', '--json']);
    expect(res.code).toBe(2);
    expect(JSON.parse(res.stderr)).toMatchObject({ error: { code: 'engine_missing' } });
  });

  it('an unreachable queue is a clear error, not a hang, and shows no password', async () => {
    const res = await runCli([
      'failed',
      'list',
      '--database-url',
      'postgres://postgres:hunter2@127.0.0.1:1/nowhere',
    ]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/could not reach the pg-boss queue/);
    expect(res.stderr).not.toMatch(/hunter2/);
    const redis = await runCli(['failed', 'list', '--redis-url', 'redis://:hunter2@127.0.0.1:1']);
    expect(redis.code).toBe(1);
    expect(redis.stderr).toMatch(/could not reach the bullmq queue/);
    expect(redis.stderr).not.toMatch(/hunter2/);
  });

  it('an empty URL is refused with an example of its own kind', async () => {
    const pg = await runCli(['failed', 'list', '--database-url', '']);
    expect(pg.code).toBe(2);
    expect(pg.stderr).toMatch(
      /--database-url.*is empty: pass a connection URL, e\.g\. postgres:\/\/127\.0\.0\.1:5432\/app\./,
    );
    expect(pg.stderr).not.toMatch(/redis:/);
    const redis = await runCli(['failed', 'list', '--redis-url', 'not a url']);
    expect(redis.code).toBe(2);
    expect(redis.stderr).toMatch(
      /--redis-url.*must be a connection URL, e\.g\. redis:\/\/127\.0\.0\.1:6379\./,
    );
  });

  it('a database where pg-boss never ran is schema_missing, not "not installed", and stays so', async () => {
    const db = await createDatabase('cli_failed_empty');
    try {
      const res = await runCli(['failed', 'list', '--database-url', db.url, '--json']);
      expect(res.code).toBe(1);
      const { error } = JSON.parse(res.stderr);
      expect(error.code).toBe('schema_missing');
      expect(error.message).toBe(
        `pg-boss's schema "pgboss" is not in ${db.name}: pg-boss never ran on this database. Check ` +
          '--database-url, pass --schema if your app gives pg-boss another one, or start the app once ' +
          '(boss.start() creates the schema).',
      );
      const other = await runCli(['failed', 'replay', 'evt_1', '--database-url', db.url, '--schema', 'jobs']);
      expect(other.stderr).toMatch(/pg-boss's schema "jobs" is not in /);
      // Reading created nothing: the CLI never installs pg-boss behind the app's back.
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      const { rows } = await client.query("SELECT 1 FROM pg_namespace WHERE nspname IN ('pgboss', 'jobs')");
      await client.end();
      expect(rows).toEqual([]);
    } finally {
      await db.drop();
    }
  });

  it('refuses an event id that is not evt_…', async () => {
    const res = await runCli(['failed', 'replay', 'nope', '--redis-url', 'redis://127.0.0.1:1']);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/must be an event id/);
  });
});
