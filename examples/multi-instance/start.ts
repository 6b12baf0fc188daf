import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createTestDelivery, type EventType } from '@sms-webhooks/core';
import { freePort, startRedisServer } from './redis-server.js';

// One command for the whole picture: a redis-server (unless REDIS_URL is set), two app instances as
// separate processes, then every event sent to both instances at once. Exits 0 when each event was
// handled exactly once across the two.

const here = fileURLToPath(new URL('.', import.meta.url));
// The instances sign-check with SMS_WEBHOOK_SECRET when it is set: sign with the same one.
const secret = process.env.SMS_WEBHOOK_SECRET ?? 'whsec_dev_only_not_a_real_secret_0000';
const TYPES: EventType[] = ['message.sent', 'message.delivered', 'message.failed', 'message.replied'];
const EVENTS = 12;
const children: ChildProcess[] = [];
let stopRedis: (() => Promise<void>) | undefined;

function startInstance(name: string, client: string, port: number, redisUrl: string): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'instance.ts'], {
    cwd: here,
    env: { ...process.env, INSTANCE: name, REDIS_CLIENT: client, PORT: String(port), REDIS_URL: redisUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    const print = (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        console.log(`[${name}] ${line}`);
        if (line.startsWith('listening on ')) resolve(`http://127.0.0.1:${port}`);
      }
    };
    child.stdout?.on('data', print);
    child.stderr?.on('data', print);
    // 'close', not 'exit': its last lines (why it could not start) are printed first.
    child.once('close', (code) => reject(new Error(`instance ${name} exited with code ${code}`)));
  });
}

async function post(url: string, delivery: { body: string; headers: Record<string, string> }) {
  const res = await fetch(`${url}/webhooks/sms`, {
    method: 'POST',
    body: delivery.body,
    headers: delivery.headers,
  });
  return `${res.status} ${await res.text()}`;
}

async function stopAll(): Promise<void> {
  await Promise.all(
    children
      .filter((c) => c.exitCode === null)
      .map((c) => {
        const exited = new Promise((r) => c.once('exit', r));
        c.kill('SIGTERM');
        return exited;
      }),
  );
  await stopRedis?.();
}

async function main(): Promise<boolean> {
  let redisUrl = process.env.REDIS_URL;
  if (!redisUrl) {
    const redis = await startRedisServer();
    stopRedis = redis.stop;
    redisUrl = redis.url;
  }
  console.log(`[start] redis at ${redisUrl}`);
  // PORT and the port after it when PORT is set, else two free ports.
  const first = process.env.PORT ? Number(process.env.PORT) : undefined;
  const [a, b] = await Promise.all([
    startInstance('a', 'ioredis', first ?? (await freePort()), redisUrl),
    startInstance('b', 'node-redis', first === undefined ? await freePort() : first + 1, redisUrl),
  ]);

  const events = Array.from({ length: EVENTS }, (_, i) =>
    createTestDelivery(TYPES[i % TYPES.length]!, { secret }),
  );
  // Each event reaches both instances at the same moment, as when a retry and a load balancer race.
  for (const d of events) {
    const [toA, toB] = await Promise.all([post(a!, d), post(b!, d)]);
    console.log(`[start] ${d.event.id} ${d.event.type.padEnd(17)} a: ${toA.padEnd(40)} b: ${toB}`);
  }

  const handled = await Promise.all(
    [a!, b!].map(async (url) => (await (await fetch(`${url}/handled`)).json()) as { handled: string[] }),
  );
  const all = handled.flatMap((h) => h.handled);
  const once = events.every((d) => all.filter((id) => id === d.event.id).length === 1);
  console.log(
    `[start] ${EVENTS} events, ${EVENTS * 2} deliveries: a handled ${handled[0]!.handled.length}, ` +
      `b handled ${handled[1]!.handled.length}; ` +
      (once && all.length === EVENTS ? 'each event handled exactly once' : 'SOME EVENT WAS NOT HANDLED ONCE'),
  );
  return once && all.length === EVENTS;
}

main()
  .then(async (ok) => {
    await stopAll();
    process.exit(ok ? 0 : 1);
  })
  .catch(async (error) => {
    console.error(`[start] ${error instanceof Error ? error.message : String(error)}`);
    await stopAll();
    process.exit(1);
  });
