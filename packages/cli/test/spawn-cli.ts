import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { collectOutput, type Finished } from '@sms-webhooks/test-helpers/collect-output';
import { nodeProgram } from '@sms-webhooks/test-helpers/node-program';
import { stateFile } from './helpers.js';

export type { Finished };

/** The repository root. */
export const root = fileURLToPath(new URL('../../../', import.meta.url));
/**
 * The CLI from its TypeScript sources, bundled once per test file (test/helpers/node-program.ts): what
 * `node --import tsx packages/cli/src/bin.ts` runs, without tsx's loader costing each of the hundreds of
 * commands these tests run about a second of CPU. A command that names a TypeScript module of the test's
 * (a receiver, a store) runs with tsx's loader as well, which is what loads that module.
 */
const PROGRAM = await nodeProgram(join(root, 'packages/cli/src/bin.ts'));
const bin = (args: string[]) =>
  args.some((arg) => /\.[mc]?ts\b/.test(arg))
    ? ['--import', 'tsx', '--enable-source-maps', PROGRAM]
    : ['--enable-source-maps', PROGRAM];

function environment(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const base = { ...process.env };
  // The test's own environment must not leak a secret or an address into the command.
  delete base.SMS_WEBHOOK_SECRET;
  delete base.SMS_API_BASE_URL;
  delete base.SMS_API_KEY;
  return { ...base, SMS_WEBHOOKS_STATE_FILE: stateFile, ...env };
}

/** Runs `sms-webhooks …` as a real process to its end. */
export function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<Finished> {
  return collectOutput(
    spawn(process.execPath, [...bin(args), ...args], { cwd: root, env: environment(env) }),
  );
}

/** A shell pipeline, for what only a pipe shows (`… | head -1`). `$CLI` is the command. */
export function shell(script: string): Promise<Finished> {
  return collectOutput(
    spawn('bash', ['-c', script], {
      cwd: root,
      env: { ...environment({}), CLI: `${process.execPath} ${bin([]).join(' ')}` },
    }),
  );
}

export interface Running {
  child: ChildProcess;
  /** Every stdout line so far. */
  lines: string[];
  stderr(): string;
  /** Resolves with the first line (already seen or to come) matching `pattern`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Ctrl-C, then the exit code. */
  interrupt(): Promise<number | null>;
}

/** Starts a long-running command (`listen`, `emulator`) and follows its output line by line. */
export function start(args: string[], env: Record<string, string | undefined> = {}): Running {
  const child = spawn(process.execPath, [...bin(args), ...args], { cwd: root, env: environment(env) });
  const lines: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (c) => {
    stderr += c;
  });
  const waiters: { pattern: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    for (const w of [...waiters]) {
      const m = w.pattern.exec(line);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    lines,
    stderr: () => stderr,
    waitFor(pattern, timeoutMs = 30_000) {
      for (const line of lines) {
        const m = pattern.exec(line);
        if (m) return Promise.resolve(m);
      }
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no line matching ${pattern} in:\n${lines.join('\n')}\nstderr:\n${stderr}`)),
          timeoutMs,
        );
        waiters.push({
          pattern,
          resolve: (m) => {
            clearTimeout(timer);
            resolve(m);
          },
        });
        void exited.then(() => {
          clearTimeout(timer);
          reject(
            new Error(`exited before a line matching ${pattern}:\n${lines.join('\n')}\nstderr:\n${stderr}`),
          );
        });
      });
    },
    async interrupt() {
      if (child.exitCode === null) child.kill('SIGINT');
      return exited;
    },
  };
}
