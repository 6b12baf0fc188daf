import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export interface Child {
  /** Resolves with the first printed JSON line that has `key`. */
  printed(key: string): Promise<Record<string, unknown>>;
  /** SIGKILL, as a crash or an OOM kill would, and wait for the exit. */
  kill(): Promise<void>;
}

/** A fixture in its own Node process (tsx; tsconfig paths map the packages to their sources). */
export function spawnFixture(name: string, env: Record<string, string>): Child {
  const file = fileURLToPath(new URL(`./fixtures/${name}.ts`, import.meta.url));
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
  const lines: Record<string, unknown>[] = [];
  const waiting = new Set<() => void>();
  let buffer = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      lines.push(JSON.parse(buffer.slice(0, i)) as Record<string, unknown>);
      buffer = buffer.slice(i + 1);
    }
    for (const wake of waiting) wake();
  });
  return {
    printed(key) {
      return new Promise((resolve, reject) => {
        const look = () => {
          const line = lines.find((l) => key in l);
          if (line) {
            waiting.delete(look);
            resolve(line);
          }
        };
        waiting.add(look);
        look();
        void exited.then(() => reject(new Error(`${name} exited before printing ${key}:\n${stderr}`)));
      });
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
