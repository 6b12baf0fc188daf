import { spawnFixture } from '@sms-webhooks/test-helpers/fixture-process';

const FIXTURE = new URL('./fixtures/hanging-worker.ts', import.meta.url);
const ORDERED = new URL('./fixtures/ordered-worker.ts', import.meta.url);

export interface WorkerProcess {
  /** Resolves with the event id once the handler has started on a job (it then hangs forever). */
  started: Promise<string>;
  /** SIGKILL, as a crash or an OOM kill would, and wait for the exit. */
  kill(): Promise<void>;
  /** Resolves when the process has exited (a fixture that kills itself). */
  exited: Promise<void>;
}

/** `fixtures/hanging-worker.ts` in its own Node process. */
export function spawnHangingWorker(env: {
  url: string;
  queue: string;
  module: string;
}): Promise<WorkerProcess> {
  return worker(FIXTURE, { DATABASE_URL: env.url, QUEUE: env.queue, PGBOSS_MODULE: env.module });
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
}): Promise<WorkerProcess> {
  return worker(ORDERED, {
    DATABASE_URL: env.url,
    QUEUE: env.queue,
    KILL_AT: env.killAt,
    PGBOSS_MODULE: env.module,
  });
}

/** A worker fixture that prints `{"started": <event id>}` once its handler runs. */
async function worker(file: URL, env: Record<string, string>): Promise<WorkerProcess> {
  const child = await spawnFixture(file, env);
  const started = child.printed('started', 60_000).then((message) => message.started as string);
  started.catch(() => {});
  return { started, kill: child.kill, exited: child.exited.then(() => undefined) };
}
