import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildTypes } from '../../build-types.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EXAMPLE = join(ROOT, 'examples/nextjs');

function link(target: string, at: string): void {
  mkdirSync(dirname(at), { recursive: true });
  symlinkSync(realpathSync(target), at, 'dir');
}

const notBuilt = (path: string) =>
  !/[\\/](node_modules|dist|\.next)$/.test(path) && !path.endsWith('next-env.d.ts');

/**
 * examples/nextjs with @sms-webhooks/core and /web as published: each built by its own tsup config (ESM,
 * CJS, core's Web build for the edge-light condition), then their types as `pnpm build` writes them
 * (build-types.ts), in a copy of the repository's layout under `dir`, so this never touches the packages'
 * own dist/ that other tests build and clean. Next, React and their types are the ones the lockfile
 * installed for the example. Returns the app's directory.
 */
export function prepareNextApp(dir: string): string {
  rmSync(dir, { recursive: true, force: true });
  for (const file of ['tsup.base.ts', 'tsconfig.json', 'tsconfig.base.json', 'tsconfig.build.json']) {
    cpSync(join(ROOT, file), join(dir, file));
  }
  // The private package both bundle in, and core's one dependency, where their builds look for them.
  cpSync(join(ROOT, 'internal'), join(dir, 'internal'), { recursive: true });
  link(join(dir, 'internal'), join(dir, 'node_modules/@sms-webhooks/internal'));
  link(join(ROOT, 'packages/core/node_modules/raw-body'), join(dir, 'node_modules/raw-body'));
  const tsup = join(ROOT, 'node_modules/.bin/tsup');
  for (const name of ['core', 'web']) {
    const pkg = join(dir, 'packages', name);
    cpSync(join(ROOT, 'packages', name), pkg, { recursive: true, filter: notBuilt });
    link(pkg, join(dir, 'node_modules/@sms-webhooks', name));
    execFileSync(tsup, [], { cwd: pkg, stdio: 'pipe', timeout: 240_000 });
  }
  buildTypes(dir);
  const app = join(dir, 'app');
  cpSync(EXAMPLE, app, { recursive: true, filter: notBuilt });
  for (const name of ['next', 'react', 'react-dom', '@types/react']) {
    link(join(EXAMPLE, 'node_modules', name), join(app, 'node_modules', name));
  }
  execFileSync(join(app, 'node_modules/next/dist/bin/next'), ['build'], {
    cwd: app,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NODE_ENV: 'production' },
    stdio: 'pipe',
    timeout: 420_000,
  });
  return app;
}

export interface NextServer {
  url: string;
  /** Everything the server printed so far. */
  output(): string;
  stop(): Promise<void>;
}

/** `next start` on a port the system chose, with `env`; resolves once it answers. */
export async function startNext(app: string, port: number, env: Record<string, string>): Promise<NextServer> {
  const child: ChildProcess = spawn(
    process.execPath,
    [join(app, 'node_modules/next/dist/bin/next'), 'start', '-p', String(port), '-H', '127.0.0.1'],
    {
      cwd: app,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NODE_ENV: 'production', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`next start did not get ready:\n${output}`)), 60_000);
    const ready = () => {
      if (!/Ready in/.test(output)) return;
      clearTimeout(timer);
      resolve();
    };
    child.stdout!.on('data', ready);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`next start exited with ${code}:\n${output}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => output,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
