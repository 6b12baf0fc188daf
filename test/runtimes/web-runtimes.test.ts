import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { bundle } from './bundle.js';
import { MAX_BODY_BYTES, runtimeContract, SECRET } from './contract.js';
import { RUNTIMES_DIR, runtime } from './runtimes.js';
import { startServer } from './servers.js';
import { startWorker } from './workerd.js';

// The web handler's contract on each runtime it claims, each the real runtime from the npm registry
// (test/runtimes/install.sh): Bun and Deno serve fixtures/server.ts; workerd runs fixtures/worker.ts
// through miniflare, with and without nodejs_compat, and Vercel's edge-runtime runs fixtures/edge.ts, both
// built as the published Web build is.

const dir = mkdtempSync(join(tmpdir(), 'sms-webhooks-runtimes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const env = { SMS_WEBHOOK_SECRET: SECRET, MAX_BODY_BYTES: String(MAX_BODY_BYTES) };

async function serverScript(): Promise<string> {
  const file = join(dir, 'server.mjs');
  writeFileSync(file, await bundle('server.ts', 'node'));
  return file;
}

runtimeContract('Bun', async () => startServer(runtime('bun'), ['run', await serverScript()], env), false);

runtimeContract(
  'Deno 2',
  async () =>
    startServer(runtime('deno'), ['run', '--allow-net=127.0.0.1', '--allow-env', await serverScript()], {
      ...env,
      DENO_DIR: join(dir, 'deno'),
      DENO_NO_UPDATE_CHECK: '1',
    }),
  false,
);

runtimeContract(
  'workerd without nodejs_compat (Web APIs only)',
  async () => startWorker(await bundle('worker.ts', 'web'), [], env),
  true,
);

runtimeContract(
  'workerd with nodejs_compat',
  async () => startWorker(await bundle('worker.ts', 'web'), ['nodejs_compat'], env),
  true,
);

interface EdgeRuntimeModule {
  EdgeRuntime: new (options: { initialCode: string }) => unknown;
  runServer(options: { runtime: unknown; port: number; host: string }): Promise<{
    url: string;
    close(): Promise<void>;
  }>;
}

runtimeContract(
  "Vercel's edge-runtime",
  async () => {
    runtime('edge-runtime');
    const { EdgeRuntime, runServer } = (await import(
      `${RUNTIMES_DIR}edge-runtime/dist/index.js`
    )) as EdgeRuntimeModule;
    const script = `globalThis.SMS_ENV = ${JSON.stringify(env)};\n${await bundle('edge.ts', 'web', 'iife')}`;
    const server = await runServer({
      runtime: new EdgeRuntime({ initialCode: script }),
      port: 0,
      host: '127.0.0.1',
    });
    return {
      fetch: (path, init) => fetch(new URL(path, server.url), init),
      stop: () => server.close(),
    };
  },
  true,
);
