import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWorker as bullmqWorker, enqueueTo } from '@sms-webhooks/bullmq';
import { createReceiver, type Receiver } from '@sms-webhooks/core';
import { VirtualClock } from '@sms-webhooks/core/testing';
import { createEmulator, type Emulator } from '@sms-webhooks/emulator';
import { PostgresStore } from '@sms-webhooks/postgres';
import {
  enqueueTo as rabbitEnqueue,
  listFailed as rabbitListFailed,
  createWorker as rabbitWorker,
} from '@sms-webhooks/rabbitmq';
import { RedisStore } from '@sms-webhooks/redis';
import { captureLogger, waitFor } from '@sms-webhooks/test-helpers';
import { createDatabase, pgPool } from '@sms-webhooks/test-helpers/postgres-db';
import { type RedisServer, startRedisServer } from '@sms-webhooks/test-helpers/redis-server';
import amqp from 'amqplib';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { runCli } from './helpers.js';
import { cli } from './spawn-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'sms-webhooks-ops-'));

/** An app on node:http whose receiver the test swaps, as a redeploy would. */
async function app(first: Receiver) {
  let current = first;
  const answers: number[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const out = await current.handle({ rawBody: Buffer.concat(chunks), headers: req.headers });
    answers.push(out.status);
    res.writeHead(out.status, out.headers).end(out.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    answers,
    use(receiver: Receiver) {
      current = receiver;
    },
    close: () =>
      new Promise<void>((r) => server.close(() => r())).finally(() => server.closeAllConnections()),
  };
}

const placeholder = () =>
  createReceiver({ secret: 'whsec_placeholder_0123456789abcdef', logger: captureLogger() });

let emulator: Emulator;
let env: Record<string, string>;
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await emulator?.close();
});

async function startEmulator(clock?: VirtualClock) {
  emulator = createEmulator({ allowInsecureLoopback: true, clock });
  env = { SMS_API_KEY: 'sk_test_ops_cli', SMS_API_BASE_URL: await emulator.listen() };
}

describe('sms-webhooks audit (RedisStore)', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(() => redis?.stop());

  it('prints the events missed and retrying, and exits 1; --json gives the report', async () => {
    const clock = new VirtualClock();
    await startEmulator(clock);
    const target = await app(placeholder());
    closers.push(target.close);
    const created = await runCli(
      ['webhooks', 'create', '--url', target.url, '--events', 'message.sent,message.failed', '--json'],
      env,
    );
    const webhook = JSON.parse(created.stdout) as { id: string; secret: string };
    const client = new Redis(redis.url);
    closers.push(() => client.quit());
    const prefix = `ops-cli-${randomBytes(4).toString('hex')}:`;
    const store = new RedisStore({ client, clientType: 'ioredis', prefix });
    target.use(
      createReceiver({
        secret: webhook.secret,
        store,
        clock,
        respond: 'after-handlers',
        logger: captureLogger(),
      })
        .on('message.sent', () => {})
        .on('message.failed', () => {
          throw new Error('down all night');
        }),
    );
    const [sent] = emulator.emit('message.sent');
    const [failed] = emulator.emit('message.failed');
    await clock.runAll();
    const [late] = emulator.emit('message.failed');
    await clock.advance(0);

    const args = ['audit', webhook.id, '--redis-url', redis.url, '--store-prefix', prefix];
    const text = await runCli(args, env);
    expect(text.code).toBe(1);
    const lines = text.stdout.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^Audit of ${webhook.id}: 3 record\\(s\\) from \\S+ to \\S+ \\(`));
    expect(lines.find((l) => l.startsWith('missed '))).toMatch(
      new RegExp(`^missed +${failed!.id} +message\\.failed +6 +500 +gave up: HTTP 500`),
    );
    expect(lines.find((l) => l.startsWith('retrying '))).toMatch(
      new RegExp(
        `^retrying +${late!.id} +message\\.failed +1 +500 +next attempt ${new Date(clock.now() + 60_000).toISOString()}`,
      ),
    );
    expect(text.stdout).not.toContain(sent!.id); // fine events only with --all
    expect(text.stdout).toContain('missed 1 · unfinished 0 · retrying 1 · fine 1');
    expect(text.stderr).toBe(`error: 1 missed and 0 unfinished event(s) on ${webhook.id}.\n`);
    expect((await runCli([...args, '--all'], env)).stdout).toMatch(
      new RegExp(`fine +${sent!.id} .*delivered and completed`),
    );

    const json = await runCli([...args, '--json'], env);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      webhookId: webhook.id,
      counts: { missed: 1, retrying: 1, unfinished: 0, fine: 1 },
      ok: false,
    });
    expect(JSON.parse(json.stderr)).toEqual({
      error: { code: 'audit_failed', message: `1 missed and 0 unfinished event(s) on ${webhook.id}.` },
    });
    // Everything fine, from the store's side too: exit 0.
    const healthy = await runCli(
      ['audit', webhook.id, '--redis-url', redis.url, '--store-prefix', prefix, '--handles', 'message.sent'],
      env,
    );
    expect(healthy.code).toBe(0);
    expect(healthy.stdout).toContain('missed 0 · unfinished 0 · retrying 0 · fine 3');
  });

  it('--queue names the events whose BullMQ jobs failed for good', async () => {
    await startEmulator();
    const target = await app(placeholder());
    closers.push(target.close);
    const webhook = JSON.parse(
      (
        await runCli(
          ['webhooks', 'create', '--url', target.url, '--events', 'message.delivered', '--json'],
          env,
        )
      ).stdout,
    );
    const name = `ops-audit-${randomBytes(4).toString('hex')}`;
    const { hostname, port } = new URL(redis.url);
    const connection = { host: hostname, port: Number(port) };
    const queue = new Queue(name, { connection });
    closers.push(() => queue.close());
    const client = new Redis(redis.url);
    closers.push(() => client.quit());
    const prefix = `${name}:`;
    const store = new RedisStore({ client, clientType: 'ioredis', prefix });
    // The 200 once the job is queued; the worker's handler fails on both of its attempts.
    target.use(
      createReceiver({
        secret: webhook.secret,
        store,
        logger: captureLogger(),
        dispatch: enqueueTo(queue, { attempts: 2, backoff: 10 }),
      }).on('message.delivered', () => {}),
    );
    const workerSide = createReceiver({ secret: webhook.secret, store, logger: captureLogger() }).on(
      'message.delivered',
      () => {
        throw new Error('ledger is read-only');
      },
    );
    const worker = bullmqWorker(workerSide, { connection, queue: name });
    closers.push(() => worker.close());
    const [event] = emulator.emit('message.delivered');
    await waitFor(async () => (await queue.getFailedCount()) === 1, 'the job to fail for good');

    const result = await runCli(
      ['audit', webhook.id, '--redis-url', redis.url, '--store-prefix', prefix, '--queue', name],
      env,
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      new RegExp(
        `^unfinished +${event!.id} +message\\.delivered +1 +200 +in the queue's failed set: .*ledger is read-only.* \\(sms-webhooks failed replay ${event!.id}\\)$`,
        'm',
      ),
    );
    const json = JSON.parse(
      (
        await runCli(
          [
            'audit',
            webhook.id,
            '--redis-url',
            redis.url,
            '--store-prefix',
            prefix,
            '--queue',
            name,
            '--json',
          ],
          env,
        )
      ).stdout,
    );
    expect(json.events).toEqual([
      expect.objectContaining({
        eventId: event!.id,
        category: 'unfinished',
        stored: 'none',
        failedJob: expect.objectContaining({ attempts: 2 }),
      }),
    ]);
  });

  it('--amqp-url with --queue names the events in the RabbitMQ failed queue, and leaves them there', async () => {
    await startEmulator();
    const target = await app(placeholder());
    closers.push(target.close);
    const webhook = JSON.parse(
      (
        await runCli(
          ['webhooks', 'create', '--url', target.url, '--events', 'message.delivered', '--json'],
          env,
        )
      ).stdout,
    );
    const name = `sms-test-ops-${process.pid}-${randomBytes(4).toString('hex')}`;
    const amqpUrl = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
    const connection = await amqp.connect(amqpUrl);
    connection.on('error', () => {});
    closers.push(async () => {
      const channel = await connection.createChannel();
      for (const q of [name, `${name}.failed`]) await channel.deleteQueue(q);
      await channel.deleteExchange(`${name}.dead-letter`);
      await connection.close();
    });
    const client = new Redis(redis.url);
    closers.push(() => client.quit());
    const prefix = `${name}:`;
    const store = new RedisStore({ client, clientType: 'ioredis', prefix });
    target.use(
      createReceiver({
        secret: webhook.secret,
        store,
        logger: captureLogger(),
        dispatch: rabbitEnqueue(connection, { store, queue: name }),
      }).on('message.delivered', () => {}),
    );
    const worker = await rabbitWorker(
      {
        'message.delivered': () => {
          throw new Error('ledger is read-only');
        },
      },
      { connection, queue: name, store, attempts: 1, logger: captureLogger() },
    );
    closers.push(() => worker.close());
    const [event] = emulator.emit('message.delivered');
    await waitFor(async () => (await rabbitListFailed(connection, { queue: name })).length === 1, 'failed');

    const args = ['audit', webhook.id, '--redis-url', redis.url, '--store-prefix', prefix];
    const result = await runCli([...args, '--amqp-url', amqpUrl, '--queue', name], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      new RegExp(
        `^unfinished +${event!.id} +message\\.delivered +1 +200 +in the queue's failed set: .*ledger is read-only.* \\(sms-webhooks failed replay ${event!.id}\\)$`,
        'm',
      ),
    );
    const json = JSON.parse(
      (await runCli([...args, '--amqp-url', amqpUrl, '--queue', name, '--json'], env)).stdout,
    );
    expect(json.events).toEqual([
      expect.objectContaining({
        eventId: event!.id,
        category: 'unfinished',
        failedJob: expect.objectContaining({ attempts: 1, error: expect.stringMatching(/read-only/) }),
      }),
    ]);
    // Read, not consumed: the message is still in the failed queue for `failed replay`.
    expect(await rabbitListFailed(connection, { queue: name })).toHaveLength(1);
    // Without --amqp-url, --queue is BullMQ's on Redis: nothing there, and the note says so.
    const bare = await runCli([...args, '--queue', name], env);
    expect(bare.stdout).toMatch(/acknowledged; the store has no completion/);
    const down = await runCli([...args, '--amqp-url', 'amqp://guest:hunter2@127.0.0.1:1'], env);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/could not reach RabbitMQ/);
    expect(down.stderr).not.toMatch(/hunter2/);
  });

  it('says how to name the store when none is given', async () => {
    await startEmulator();
    const result = await runCli(['audit', 'wh_x'], env);
    expect(result).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--redis-url .* or --database-url/),
    });
  });
});

describe('sms-webhooks audit (PostgresStore)', () => {
  it('reads the table given with --table, names the unfinished event, and exits 1', async () => {
    await startEmulator();
    const db = await createDatabase('cli_audit');
    const pool = pgPool(db.url);
    closers.push(() => db.drop());
    closers.push(() => pool.end());
    const table = `audit_${randomBytes(4).toString('hex')}`;
    const store = new PostgresStore({ pool, table });
    await store.migrate();
    const target = await app(placeholder());
    closers.push(target.close);
    const webhook = JSON.parse(
      (
        await runCli(
          ['webhooks', 'create', '--url', target.url, '--events', 'message.sent,message.delivered', '--json'],
          env,
        )
      ).stdout,
    );
    const receiver = createReceiver({ secret: webhook.secret, store, retry: false, logger: captureLogger() })
      .on('message.sent', () => {})
      .on('message.delivered', () => {
        throw new Error('crashed after the 200');
      });
    target.use(receiver);
    const [sent] = emulator.emit('message.sent');
    const [delivered] = emulator.emit('message.delivered');
    await emulator.waitForIdle(5000);
    await receiver.drain();

    const result = await runCli(
      ['audit', webhook.id, '--database-url', db.url, '--table', table, '--all'],
      env,
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      new RegExp(
        `^unfinished +${delivered!.id} +message\\.delivered +1 +200 +acknowledged; the store has no completion$`,
        'm',
      ),
    );
    expect(result.stdout).toMatch(new RegExp(`^fine +${sent!.id} .*delivered and completed$`, 'm'));
    expect(result.stdout).toContain('missed 0 · unfinished 1 · retrying 0 · fine 1');
    // An app whose receiver (read from its module) has no handler for message.delivered: ignored, fine.
    const fixture = new URL('./fixtures/ops-receiver.ts', import.meta.url).pathname;
    const ignoring = await runCli(
      ['audit', webhook.id, '--database-url', db.url, '--table', table, '--receiver', fixture],
      env,
    );
    expect(ignoring.stderr).toBe('');
    expect(ignoring.code).toBe(0);
    expect(ignoring.stdout).toContain('missed 0 · unfinished 0 · retrying 0 · fine 2');
  });
});

describe('sms-webhooks webhooks sync / coverage / smoke-test / rotate', () => {
  beforeEach(() => startEmulator());

  it('sync creates once (secret to a 0600 file), then matches twice; a foreign webhook is untouched', async () => {
    const foreign = JSON.parse(
      (
        await runCli(
          ['webhooks', 'create', '--url', 'https://other.example/x', '--events', 'message.sent', '--json'],
          env,
        )
      ).stdout,
    );
    const secretFile = join(dir, `secret-${randomBytes(4).toString('hex')}`);
    const args = [
      'webhooks',
      'sync',
      '--url',
      'https://app.example/sms',
      '--events',
      'message.delivered,webhook.test',
    ];
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await runCli([...args, '--secret-file', secretFile], env));
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0]);
    const id =
      /^Created (wh_\w+) → https:\/\/app\.example\/sms\n {2}secret written to .* \(mode 0600\)\n$/.exec(
        runs[0]!.stdout,
      )![1];
    expect(runs[1]!.stdout).toBe(`${id} → https://app.example/sms matches the declaration.\n`);
    expect(runs[2]!.stdout).toBe(runs[1]!.stdout);
    const secret = readFileSync(secretFile, 'utf8').trim();
    expect(secret).toMatch(/^whsec_/);
    expect(statSync(secretFile).mode & 0o777).toBe(0o600);
    for (const r of runs) expect(r.stdout + r.stderr).not.toContain(secret);
    expect(
      emulator
        .webhooks()
        .map((w) => w.id)
        .sort(),
    ).toEqual([id, foreign.id].sort());
    expect(emulator.webhooks().find((w) => w.id === foreign.id)).toMatchObject({
      url: 'https://other.example/x',
      events: ['message.sent'],
    });

    const mismatch = await runCli(
      ['webhooks', 'sync', '--url', 'https://app.example/sms', '--events', 'message.failed'],
      env,
    );
    expect(mismatch.code).toBe(1);
    expect(mismatch.stdout).toBe(
      `${id} → https://app.example/sms: does not subscribe to message.failed; also subscribes to message.delivered, webhook.test\n`,
    );
    expect(mismatch.stderr).toMatch(/webhooks rotate/);
    expect(emulator.webhooks()).toHaveLength(2);
  });

  it('coverage names what differs, from --handles or a receiver module', async () => {
    const created = JSON.parse(
      (
        await runCli(
          [
            'webhooks',
            'create',
            '--url',
            'https://app.example/sms',
            '--events',
            'message.sent,message.failed,webhook.test',
            '--json',
          ],
          env,
        )
      ).stdout,
    );
    const off = await runCli(
      ['webhooks', 'coverage', created.id, '--handles', 'message.sent,message.delivered'],
      env,
    );
    expect(off).toMatchObject({ code: 1 });
    expect(off.stdout).toBe(
      `handled, but ${created.id} does not subscribe: message.delivered\nsubscribed, but nothing handles: message.failed\n`,
    );
    const fixture = new URL('./fixtures/ops-receiver.ts', import.meta.url).pathname;
    const ok = await runCli(['webhooks', 'coverage', created.id, '--receiver', fixture], env);
    expect(ok).toMatchObject({ code: 0, stdout: `${created.id} subscribes to what the app handles.\n` });
  });

  it('smoke-test passes on a 2xx and says what the app answered otherwise', async () => {
    const target = await app(placeholder());
    closers.push(target.close);
    const webhook = JSON.parse(
      (await runCli(['webhooks', 'create', '--url', target.url, '--events', 'webhook.test', '--json'], env))
        .stdout,
    );
    const refused = await runCli(['webhooks', 'smoke-test', webhook.id], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe('error: the app answered the test delivery 400.\n');
    expect(refused.stdout).toMatch(/signature_mismatch/);
    target.use(createReceiver({ secret: webhook.secret, logger: captureLogger() }));
    expect(await runCli(['webhooks', 'smoke-test', webhook.id], env)).toMatchObject({
      code: 0,
      stdout: `${webhook.id}: the app answered the test delivery 200.\n`,
    });
  });

  it('smoke-test as a real process waits for a slow answer (its waits keep the process alive)', async () => {
    const slow = createReceiver({ secret: 'whsec_placeholder_0123456789abcdef', logger: captureLogger() });
    const target = await app(slow);
    closers.push(target.close);
    const webhook = JSON.parse(
      (await runCli(['webhooks', 'create', '--url', target.url, '--events', 'webhook.test', '--json'], env))
        .stdout,
    );
    const real = createReceiver({ secret: webhook.secret, logger: captureLogger() });
    // Answers after 1.5 s: the command's first reads of the deliveries list see the attempt under way.
    target.use({
      ...real,
      async handle(d) {
        await new Promise((r) => setTimeout(r, 1500));
        return real.handle(d);
      },
    } as Receiver);
    const result = await cli(['webhooks', 'smoke-test', webhook.id], env);
    expect(result).toMatchObject({
      code: 0,
      stdout: `${webhook.id}: the app answered the test delivery 200.\n`,
    });
  });

  it('rotate hands the secret over through a 0600 file, waits for the app, and deletes the old webhook', async () => {
    const target = await app(placeholder());
    closers.push(target.close);
    const old = JSON.parse(
      (
        await runCli(
          ['webhooks', 'create', '--url', target.url, '--events', 'message.sent,webhook.test', '--json'],
          env,
        )
      ).stdout,
    );
    target.use(createReceiver({ secret: old.secret, logger: captureLogger() }));
    const secretFile = join(dir, `rotated-${randomBytes(4).toString('hex')}`);
    // The "secret manager": once the file appears, the app is redeployed with both secrets.
    let deployed = '';
    const watcher = waitFor(() => {
      try {
        deployed = readFileSync(secretFile, 'utf8').trim();
      } catch {
        return false;
      }
      // The file appears whole (written beside it, then renamed): an empty read would be a half-written file.
      expect(deployed).not.toBe('');
      target.use(createReceiver({ secret: [old.secret, deployed], logger: captureLogger() }));
      return true;
    }, 'the secret file');
    const rotated = await runCli(
      ['webhooks', 'rotate', old.id, '--secret-file', secretFile, '--retry', '50ms', '--timeout', '20s'],
      env,
    );
    await watcher;
    expect(rotated.code).toBe(0);
    const [replacement] = emulator.webhooks();
    expect(emulator.webhooks()).toHaveLength(1);
    expect(replacement).toMatchObject({ url: target.url, secret: deployed });
    expect(rotated.stdout).toBe(
      `${replacement!.id} → ${target.url} accepted by the app; deleted ${old.id}.\nNow remove the old secret from the app.\n`,
    );
    expect(rotated.stderr).toMatch(
      new RegExp(`^Created ${replacement!.id}; its secret is in ${secretFile}\\.`),
    );
    expect(rotated.stdout + rotated.stderr).not.toContain(deployed);
    expect(statSync(secretFile).mode & 0o777).toBe(0o600);

    expect(await runCli(['webhooks', 'rotate', replacement!.id, '--json'], env)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--secret-file/),
    });
  }, 60_000);
});
