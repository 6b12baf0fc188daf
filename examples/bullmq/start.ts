import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDelivery } from '@sms-webhooks/core';
import { webhookSecret } from './webhooks.js';

// One command for the whole picture: a redis-server (unless REDIS_URL is set), the receiver process
// and the worker process, then one signed delivery sent twice. `--smoke` exits once it was handled.

const smoke = process.argv.includes('--smoke');
const children: ChildProcess[] = [];
let tmp: string | undefined;

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

function run(
  name: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  onLine?: (l: string) => void,
) {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  // Without this a missing binary is an unhandled 'error' event: a crash with a bare ENOENT stack.
  child.once('error', (error: NodeJS.ErrnoException) => {
    console.error(`[${name}] ${error.code === 'ENOENT' ? notFound(command) : error.message}`);
    void stopAll(1);
  });
  const print = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) {
      console.log(`[${name}] ${line}`);
      onLine?.(line);
    }
  };
  child.stdout?.on('data', print);
  child.stderr?.on('data', print);
  // One piece gone (a receiver whose port is taken, say) stops the rest, once its last line is printed.
  child.once('close', (code) => {
    if (stopping) return;
    console.error(`[start] ${name} exited with code ${code}; stopping`);
    void stopAll(code || 1);
  });
  return child;
}

function notFound(command: string): string {
  if (command !== 'redis-server') return `${command} not found on PATH.`;
  return (
    'redis-server not found on PATH. Install Redis (Debian/Ubuntu: `apt-get install redis-server`, ' +
    'macOS: `brew install redis`), or set REDIS_URL=redis://host:port to use one that is running.'
  );
}

// A minute: the receiver's first start compiles its TypeScript (tsx), which on a busy machine can take
// many seconds.
async function waitForPing(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

let stopping = false;

async function stopAll(code: number): Promise<never> {
  // A failed spawn and main()'s own failure can both land here; the first one exits, the rest wait.
  if (stopping) return new Promise<never>(() => {});
  stopping = true;
  for (const child of children.reverse()) {
    // pid undefined: the spawn itself failed, there is no process to wait for.
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) continue;
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  process.exit(code);
}

async function main(): Promise<void> {
  let redisUrl = process.env.REDIS_URL;
  if (!redisUrl) {
    const port = await freePort();
    tmp = mkdtempSync(join(tmpdir(), 'example-bullmq-'));
    run(
      'redis',
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', tmp, '--loglevel', 'warning'],
      {},
    );
    redisUrl = `redis://127.0.0.1:${port}`;
  }
  const port = Number(process.env.PORT ?? (smoke ? await freePort() : 3000));
  const handled = new Promise<string>((resolve) => {
    const tsx = ['--import', 'tsx'];
    run('worker', process.execPath, [...tsx, 'worker.ts'], { REDIS_URL: redisUrl }, (line) => {
      if (line.startsWith('handled ')) resolve(line);
    });
    run('receiver', process.execPath, [...tsx, 'receiver.ts'], { REDIS_URL: redisUrl, PORT: String(port) });
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForPing(`${url}/health`);

  const d = createTestDelivery('message.delivered', { secret: webhookSecret() });
  for (const label of ['delivery', 'redelivery']) {
    const res = await fetch(`${url}/webhooks/sms`, { method: 'POST', body: d.body, headers: d.headers });
    console.log(`[start] ${label} of ${d.event.id}: ${res.status} ${await res.text()}`);
  }
  const line = await Promise.race([
    handled,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error('the worker did not handle it')), 15_000),
    ),
  ]);
  if (!line.includes(d.event.id)) throw new Error(`unexpected event handled: ${line}`);
  if (smoke) await stopAll(0);
  console.log(`[start] running: POST signed deliveries to ${url}/webhooks/sms; Ctrl-C stops everything`);
}

process.once('SIGINT', () => void stopAll(0));
process.once('SIGTERM', () => void stopAll(0));
main().catch((error) => {
  console.error(`[start] ${error instanceof Error ? error.message : String(error)}`);
  void stopAll(1);
});
