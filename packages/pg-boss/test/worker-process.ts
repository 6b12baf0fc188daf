import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./fixtures/hanging-worker.ts', import.meta.url));
const ORDERED = fileURLToPath(new URL('./fixtures/ordered-worker.ts', import.meta.url));

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export interface WorkerProcess {
  /** Resolves with the event id once the handler has started on a job (it then hangs forever). */
  started: Promise<string>;
  /** SIGKILL, as a crash or an OOM kill would, and wait for the exit. */
  kill(): Promise<void>;
  /** Resolves when the process has exited (a fixture that kills itself). */
  exited: Promise<void>;
}

/** `fixtures/hanging-worker.ts` in its own Node process (tsx; tsconfig paths map the packages to src). */
export function spawnHangingWorker(env: { url: string; queue: string; module: string }): WorkerProcess {
  return spawnFixture(FIXTURE, { DATABASE_URL: env.url, QUEUE: env.queue, PGBOSS_MODULE: env.module });
}

/** Where `fixtures/ordered-worker.ts` kills itself (SIGKILL) in an ordered job's run. */
export type KillAt = 'handler' | 'before-commit' | 'after-commit';

/**
 * `fixtures/ordered-worker.ts`: a worker with `order` (leaseMs 1500) that kills itself at `killAt` in
 * the first job it runs. `started` resolves with that job's event id.
 */
export function spawnOrderedWorker(env: {
  url: string;
  queue: string;
  killAt: KillAt;
  module: string;
}): WorkerProcess {
  return spawnFixture(ORDERED, {
    DATABASE_URL: env.url,
    QUEUE: env.queue,
    KILL_AT: env.killAt,
    PGBOSS_MODULE: env.module,
  });
}

function spawnFixture(file: string, env: Record<string, string>): WorkerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', file], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      live.delete(child);
      resolve();
    }),
  );
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  let out = '';
  const started = new Promise<string>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /\{"started":("(?:[^"\\]|\\.)*")/.exec(out);
      if (match) resolve(JSON.parse(match[1]!) as string);
    });
    exited.then(() => reject(new Error(`the worker process exited before starting a job:\n${stderr}`)));
  });
  started.catch(() => {});
  return {
    started,
    exited,
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
