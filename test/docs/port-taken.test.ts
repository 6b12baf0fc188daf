import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import { collectOutput, type Finished } from '@sms-webhooks/test-helpers/collect-output';
import { nodeProgram } from '@sms-webhooks/test-helpers/node-program';
import { createDatabase, type TestDatabase } from '@sms-webhooks/test-helpers/postgres-db';
import { type RedisServer, startRedisServer } from '@sms-webhooks/test-helpers/redis-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeBlocks } from './markdown-blocks.js';
import { installedFor, root, runBlock } from './run-blocks.js';

// The READMEs' receivers and every example that listens, started with the port in PORT already
// taken: each must exit non-zero at once with a line that names the port and says to set PORT, rather
// than print "listening" and exit 0, crash on a null address, or wait for a health check.

/** A port held by this process on every address (`::`, dual-stack), as another app on it would. */
async function takePort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, resolve));
  return { port: (server.address() as { port: number }).port, server };
}

function expectLoudFailure(result: Finished, port: number): void {
  const output = `${result.stdout}${result.stderr}`;
  expect(result.code, output).not.toBe(0);
  expect(result.code, output).not.toBeNull();
  // The line names the port and what to do about it.
  expect(output).toMatch(new RegExp(`^.*\\bport ${port}\\b.*\\bset PORT\\b.*$`, 'm'));
  expect(output).not.toMatch(new RegExp(`listening on\\D*${port}\\b`));
  expect(output).not.toMatch(/Cannot destructure/);
}

let redis: RedisServer;
let db: TestDatabase;
beforeAll(async () => {
  redis = await startRedisServer();
  db = await createDatabase('port_taken');
});
afterAll(async () => {
  await redis?.stop();
  await db?.drop();
});

/** The README blocks that start an app on PORT: the first receiver, and each adapter's and store's. */
const READMES: Array<[path: string, section: string, env?: () => Record<string, string>]> = [
  ['README.md', 'Your first receiver'],
  ['packages/express/README.md', 'Mount it'],
  ['packages/express/README.md', 'The raw-body pitfall, and what we do about it'],
  ['packages/koa/README.md', 'Mount it'],
  ['packages/koa/README.md', 'The raw-body pitfall, and what we do about it'],
  ['packages/redis/README.md', 'Use', () => ({ REDIS_URL: redis.url })],
  ['packages/postgres/README.md', 'Use', () => ({ DATABASE_URL: db.url })],
  ['packages/nestjs/README.md', 'Setup'],
  ['packages/fastify/README.md', 'Register it'],
  ['packages/web/README.md', 'Hono'],
];

describe.each(READMES)('%s, %s', (path, section, extra) => {
  it('exits non-zero at once and says to set PORT', async () => {
    const blocks = codeBlocks(readFileSync(join(root, path), 'utf8'));
    // The program its README starts and leaves running: the app.
    const at = blocks.findIndex(
      (b) =>
        b.section === section &&
        b.lang === 'ts' &&
        (b.directive.kind === 'background' || (b.directive.kind === 'continues' && !!b.directive.until)),
    );
    expect(at, `a block under "${section}" that starts the app`).toBeGreaterThanOrEqual(0);
    const block = blocks[at]!;
    // A block that continues the one before it runs as one program with it (Nest's module, then main).
    const code = block.directive.kind === 'continues' ? blocks[at - 1]!.code + block.code : block.code;
    const { port, server } = await takePort();
    try {
      const env = {
        ...extra?.(),
        PORT: String(port),
        SMS_WEBHOOK_SECRET: 'whsec_docs_port_taken_0123456789abcdef',
      };
      const dir = installedFor(dirname(path));
      expectLoudFailure(await runBlock(block, code, env, 30_000, { dir, on: 'node' }), port);
    } finally {
      server.close();
    }
  }, 40_000);
});

/** Each example's program that listens on PORT, with what else it needs to get as far as listening. */
const EXAMPLES: Array<[example: string, file: string, env?: () => Record<string, string>]> = [
  ['express', 'server.ts'],
  ['fastify', 'server.ts'],
  ['koa', 'server.ts'],
  ['hono', 'server.ts'],
  ['nestjs', 'main.ts'],
  ['nestjs', 'main.ts', () => ({ EXAMPLE_PLATFORM: 'fastify' })],
  ['observability', 'server.ts'],
  ['postgres', 'server.ts', () => ({ DATABASE_URL: db.url })],
  ['multi-instance', 'instance.ts', () => ({ REDIS_URL: redis.url })],
  ['multi-instance', 'start.ts', () => ({ REDIS_URL: redis.url })],
  ['bullmq', 'receiver.ts', () => ({ REDIS_URL: redis.url })],
  ['bullmq', 'start.ts', () => ({ REDIS_URL: redis.url })],
  ['rabbitmq', 'receiver.ts', () => ({ REDIS_URL: redis.url })],
  ['rabbitmq', 'start.ts', () => ({ REDIS_URL: redis.url })],
];

describe.each(EXAMPLES)('examples/%s/%s', (example, file, extra) => {
  it('exits non-zero at once and says to set PORT', async () => {
    const { port, server } = await takePort();
    try {
      const env: NodeJS.ProcessEnv = { ...process.env, ...extra?.(), PORT: String(port) };
      delete env.HOST; // every address: the one taken
      // Bundled (test/helpers/node-program.ts): what `tsx <file>` runs, at a fraction of its CPU.
      const program = await nodeProgram(join(root, 'examples', example, file));
      const child = spawn(process.execPath, ['--enable-source-maps', program], {
        cwd: join(root, 'examples', example),
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const result = await collectOutput(child).finally(() => clearTimeout(timer));
      expectLoudFailure(result, port);
    } finally {
      server.close();
    }
  }, 40_000);
});
