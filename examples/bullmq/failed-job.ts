import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWorker, enqueueTo } from '@sms-webhooks/bullmq';
import { createReceiver, createTestDelivery } from '@sms-webhooks/core';
import { RedisStore } from '@sms-webhooks/redis';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { QUEUE_NAME, webhookSecret } from './webhooks.js';

// A job that failed for good, to try `sms-webhooks failed list` and `failed replay` on: one delivery
// whose handler fails on both of its attempts, then works, so the replay succeeds. It uses a
// redis-server of its own unless REDIS_URL is set, and keeps running (Ctrl-C stops it).

const RUNS_THAT_FAIL = 2;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const cleanups: Array<() => unknown> = [];

async function redisServer(): Promise<string> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'example-failed-job-'));
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir];
  const child = spawn('redis-server', args, { stdio: 'ignore' });
  cleanups.push(
    () => child.kill(),
    () => rmSync(dir, { recursive: true, force: true }),
  );
  await new Promise<void>((resolve, reject) => {
    child.once('error', () =>
      reject(new Error('redis-server not found on PATH: install Redis, or set REDIS_URL=redis://host:port')),
    );
    child.once('spawn', () => resolve());
  });
  return `redis://127.0.0.1:${port}`;
}

async function main(): Promise<void> {
  const url = process.env.REDIS_URL ?? (await redisServer());
  const redis = new Redis(url, { maxRetriesPerRequest: null });
  const store = new RedisStore({ client: redis, clientType: 'ioredis' });
  const queue = new Queue(QUEUE_NAME, { connection: { url } });
  cleanups.unshift(
    () => queue.close(),
    () => redis.quit(),
  );

  // The receiving side: verify, claim, enqueue with two attempts a tenth of a second apart.
  const receiver = createReceiver({
    secret: webhookSecret(),
    store,
    dispatch: enqueueTo(queue, { attempts: RUNS_THAT_FAIL, backoff: 100 }),
  });
  receiver.on('message.delivered', () => {});

  // The worker: the downstream it calls is down for the first two runs.
  const workerSide = createReceiver({ secret: webhookSecret(), store });
  let runs = 0;
  workerSide.on('message.delivered', (event) => {
    runs += 1;
    if (runs <= RUNS_THAT_FAIL) throw new Error(`downstream is down (run ${runs})`);
    console.log(`handled ${event.id} on run ${runs}: the replay worked`);
  });
  const worker = createWorker(workerSide, {
    connection: { url },
    queue: QUEUE_NAME,
    onError: (error, job) => {
      const id = job.data.event.id;
      console.log(
        `${id} failed for good after ${job.attemptsMade} attempts: ${error instanceof Error ? error.message : String(error)}`,
      );
      console.log('Try, from the repository root:');
      console.log(`  pnpm sms-webhooks failed list --redis-url ${url}`);
      console.log(`  pnpm sms-webhooks failed replay ${id} --redis-url ${url}`);
      console.log('(or `npx sms-webhooks …` where @sms-webhooks/cli is installed from npm). Ctrl-C stops.');
    },
  });
  cleanups.unshift(() => worker.close());

  const d = createTestDelivery('message.delivered', { secret: webhookSecret() });
  const answer = await receiver.handle({ rawBody: d.body, headers: d.headers });
  console.log(`delivered ${d.event.id}: ${answer.status}, queued`);
}

async function stop(code: number): Promise<void> {
  for (const cleanup of cleanups) await Promise.resolve(cleanup()).catch(() => {});
  process.exit(code);
}
process.once('SIGINT', () => void stop(0));
process.once('SIGTERM', () => void stop(0));
main().catch((error) => {
  console.error(error instanceof Error ? error.message : String(error));
  void stop(1);
});
