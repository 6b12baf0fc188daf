import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDelivery } from '@sms-webhooks/core';
import { afterEach, expect, it } from 'vitest';
import { webhookSecret } from './webhooks.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const started: ChildProcess[] = [];
const dirs: string[] = [];

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

function start(command: string, args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  const child = spawn(command, args, { cwd: here, env: { ...process.env, ...env }, stdio: 'ignore' });
  started.push(child);
  return child;
}

async function health(url: string): Promise<{ status: number; body: unknown } | undefined> {
  try {
    const res = await fetch(`${url}/health`);
    return { status: res.status, body: await res.json() };
  } catch {
    return undefined; // not listening yet
  }
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

afterEach(async () => {
  for (const child of started.splice(0).reverse()) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

it('/health answers 503 until Redis is reachable, then 200, and deliveries are accepted from then on', async () => {
  const redisPort = await freePort();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  start(process.execPath, ['--import', 'tsx', 'receiver.ts'], {
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    PORT: String(port),
  });

  // Listening while Redis is down: not ready, and a delivery now is refused, not lost.
  const down = await until('the receiver to listen', () => health(url));
  expect(down.status).toBe(503);
  expect(down.body).toMatchObject({ ok: false });
  const early = createTestDelivery('message.delivered', { secret: webhookSecret() });
  const refused = await fetch(`${url}/webhooks/sms`, {
    method: 'POST',
    body: early.body,
    headers: early.headers,
  });
  expect(refused.status).toBe(503);

  const dir = mkdtempSync(join(tmpdir(), 'example-bullmq-health-'));
  dirs.push(dir);
  start('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--dir', dir]);

  const up = await until('/health to say ready', async () => {
    const h = await health(url);
    return h?.status === 200 ? h : undefined;
  });
  expect(up.body).toEqual({ ok: true, redis: 'ready', queue: 'ready' });
  const res = await fetch(`${url}/webhooks/sms`, {
    method: 'POST',
    body: early.body,
    headers: early.headers,
  });
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ received: true });
}, 60_000);
