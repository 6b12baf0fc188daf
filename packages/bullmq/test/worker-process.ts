import { spawnFixture } from '@sms-webhooks/test-helpers/fixture-process';

export interface WorkerProcess {
  /** Resolves once the worker is connected and waiting for jobs. */
  ready: Promise<void>;
  /** Resolves with the event id once the handler has started on a job (it then hangs forever). */
  started: Promise<string>;
  /** SIGKILL, as a crash or an OOM kill would, and wait for the exit. */
  kill(): Promise<void>;
}

/** `fixtures/hanging-worker.ts` in its own Node process. */
export async function spawnHangingWorker(env: {
  url: string;
  queue: string;
  workerOptions: Record<string, unknown>;
  /** Hold the job's dedupe claim in a RedisStore on `url`, renewed to this lease while the job runs. */
  leaseMs?: number;
}): Promise<WorkerProcess> {
  const child = await spawnFixture(new URL('./fixtures/hanging-worker.ts', import.meta.url), {
    REDIS_URL: env.url,
    QUEUE: env.queue,
    WORKER_OPTIONS: JSON.stringify(env.workerOptions),
    ...(env.leaseMs === undefined ? {} : { LEASE_MS: String(env.leaseMs) }),
  });
  const ready = child.printed('ready', 60_000).then(() => undefined);
  const started = child.printed('started', 60_000).then((message) => message.started as string);
  ready.catch(() => {});
  started.catch(() => {});
  return { ready, started, kill: child.kill };
}
