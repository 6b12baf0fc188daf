import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./fixtures/hanging-worker.ts', import.meta.url));

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export interface WorkerProcess {
  /** Resolves once the worker is connected and waiting for jobs. */
  ready: Promise<void>;
  /** Resolves with the event id once the handler has started on a job (it then hangs forever). */
  started: Promise<string>;
  /** SIGKILL, as a crash or an OOM kill would, and wait for the exit. */
  kill(): Promise<void>;
}

/** `fixtures/hanging-worker.ts` in its own Node process (tsx; tsconfig paths map the packages to src). */
export function spawnHangingWorker(env: {
  url: string;
  queue: string;
  workerOptions: Record<string, unknown>;
  /** Hold the job's dedupe claim in a RedisStore on `url`, renewed to this lease while the job runs. */
  leaseMs?: number;
}): WorkerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
    cwd: ROOT,
    env: {
      ...process.env,
      REDIS_URL: env.url,
      QUEUE: env.queue,
      WORKER_OPTIONS: JSON.stringify(env.workerOptions),
      ...(env.leaseMs === undefined ? {} : { LEASE_MS: String(env.leaseMs) }),
    },
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
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  const announced = <T>(pattern: RegExp, value: (match: RegExpExecArray) => T, what: string) =>
    new Promise<T>((resolve, reject) => {
      const look = () => {
        const match = pattern.exec(out);
        if (match) resolve(value(match));
      };
      child.stdout!.on('data', look);
      exited.then(() => reject(new Error(`the worker process exited before ${what}:\n${stderr}`)));
    });
  const ready = announced(/\{"ready":true\}/, () => undefined, 'it was ready');
  const started = announced(
    /\{"started":("(?:[^"\\]|\\.)*")/,
    (match) => JSON.parse(match[1]!) as string,
    'starting a job',
  );
  ready.catch(() => {});
  started.catch(() => {});
  return {
    ready,
    started,
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
