import { type ChildProcess, type ForkOptions, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { nodeProgram } from '@sms-webhooks/test-helpers/node-program';
import { nodeImports } from './code-under-test.js';

/**
 * A TypeScript module in its own Node process with an IPC channel; ours from the sources, bundled with
 * the module once per process (test/helpers/node-program.ts: what tsx runs, without its loader's cost in
 * each of the dozens of servers a suite starts), or from the published build when BENCH_FROM=build
 * (`pnpm bench --from=build` sets it; children inherit it).
 */
export async function forkTs(file: URL, args: string[] = [], execArgv: string[] = []): Promise<ChildProcess> {
  const options: ForkOptions = { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] };
  if (process.env.BENCH_FROM === 'build') {
    return fork(fileURLToPath(file), args, { ...options, execArgv: [...nodeImports('build'), ...execArgv] });
  }
  return fork(await nodeProgram(file), args, { ...options, execArgv: ['--enable-source-maps', ...execArgv] });
}

/** The next IPC message of `type`; rejects if the child exits first or nothing comes in time. */
export function nextMessage<T>(child: ChildProcess, type: string, timeoutMs = 60_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => done(new Error(`no '${type}' from child within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const onMessage = (message: { type?: string }) => {
      if (message?.type === type) done(undefined, message as T);
    };
    const onExit = (code: number | null) =>
      done(new Error(`child exited (${code}) before sending '${type}'`));
    function done(error?: Error, value?: T) {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve(value as T);
    }
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

export async function request<T>(
  child: ChildProcess,
  message: object,
  reply: string,
  timeoutMs?: number,
): Promise<T> {
  const answer = nextMessage<T>(child, reply, timeoutMs);
  child.send(message);
  return answer;
}

/** Asks politely, then kills: a benchmark must never leave a server behind. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (child.connected) child.send({ type: 'close' });
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}
