import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { nodeProgram } from './node-program.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A fixture program in its own Node process, talking to its test in JSON lines on stdout. */
export interface FixtureProcess {
  child: ChildProcess;
  /** stdout, one JSON object per line, as printed so far (other lines are left out). */
  messages: Record<string, unknown>[];
  stderr(): string;
  /** The first message matching, or a rejection after `timeoutMs` (20 s) or once the process exits. */
  waitFor(
    match: (message: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
  /** The first message that has `key` (`{"ready":true}` for 'ready'), as `waitFor` waits. */
  printed(key: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL, as a crash or an OOM kill would, and wait for the exit. */
  kill(): Promise<void>;
}

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/**
 * Runs the TypeScript program `file` (a path or a file URL) in a Node process of its own, bundled with our
 * sources once per test file (node-program.ts: what `node --import tsx` runs, without the loader's cost of
 * about a second of CPU in every process), from the repository's root, with `env` over the test's own.
 */
export async function spawnFixture(file: string | URL, env: Record<string, string>): Promise<FixtureProcess> {
  const path = file instanceof URL ? fileURLToPath(file) : file;
  const name = path.slice(ROOT.length);
  const child = spawn(process.execPath, ['--enable-source-maps', await nodeProgram(path)], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'test', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  const messages: Record<string, unknown>[] = [];
  const waiters = new Set<() => void>();
  let err = '';
  let buffered = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const line = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      if (!line.startsWith('{')) continue;
      try {
        messages.push(JSON.parse(line));
      } catch {
        // not one of the fixture's messages
      }
    }
    for (const wake of waiters) wake();
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    if (err.length < 1_000_000) err += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      live.delete(child);
      for (const wake of waiters) wake();
      resolve({ code, signal });
    });
  });

  function waitFor(match: (message: Record<string, unknown>) => boolean, timeoutMs = 20_000) {
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const check = () => {
        const found = messages.find(match);
        if (found) {
          done();
          resolve(found);
        } else if (child.exitCode !== null || child.signalCode !== null) {
          done();
          reject(
            new Error(`${name} exited (${child.exitCode ?? child.signalCode}) first:\n${err.slice(-3000)}`),
          );
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`${name}: no matching message within ${timeoutMs} ms:\n${err.slice(-3000)}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });
  }

  return {
    child,
    messages,
    stderr: () => err,
    waitFor,
    printed: (key, timeoutMs) => waitFor((message) => key in message, timeoutMs),
    exited,
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
