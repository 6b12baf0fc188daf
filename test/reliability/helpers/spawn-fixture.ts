import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { nodeProgram } from '@sms-webhooks/test-helpers/node-program';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface Fixture {
  child: ChildProcess;
  /** stdout, one JSON object per line, as printed so far. */
  messages: Record<string, unknown>[];
  stderr(): string;
  /** Resolves with the first message matching, or rejects after timeoutMs / when the process exits. */
  waitFor(
    match: (m: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of live) c.kill('SIGKILL');
});

/**
 * Runs a TypeScript fixture in its own Node process, bundled with our sources once per test file
 * (test/helpers/node-program.ts: what tsx runs, without its loader's per-module cost in every process).
 */
export async function spawnFixture(file: string, env: Record<string, string>): Promise<Fixture> {
  const path = fileURLToPath(new URL(`../fixtures/${file}`, import.meta.url));
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
    let nl = buffered.indexOf('\n');
    while (nl >= 0) {
      const line = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      if (line.startsWith('{')) {
        try {
          messages.push(JSON.parse(line));
        } catch {
          // not one of ours
        }
      }
      nl = buffered.indexOf('\n');
    }
    for (const w of waiters) w();
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    if (err.length < 1_000_000) err += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      live.delete(child);
      for (const w of waiters) w();
      resolve({ code, signal });
    });
  });

  function waitFor(match: (m: Record<string, unknown>) => boolean, timeoutMs = 20_000) {
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const check = () => {
        const found = messages.find(match);
        if (found) {
          done();
          resolve(found);
        } else if (child.exitCode !== null || child.signalCode !== null) {
          done();
          reject(
            new Error(`${file} exited (${child.exitCode ?? child.signalCode}) first:\n${err.slice(-3000)}`),
          );
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`${file}: no matching message within ${timeoutMs} ms:\n${err.slice(-3000)}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });
  }

  return { child, messages, stderr: () => err, waitFor, exited };
}
