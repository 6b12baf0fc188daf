import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import type { RunningApp } from './contract.js';

/** Starts `command args` and waits for its `listening <port>` line; stop() kills that process. */
export async function startServer(
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<RunningApp> {
  const child: ChildProcess = spawn(command, args, {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} did not start:\n${output}`)), 30_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening (\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited with ${code}:\n${output}`));
    });
  });
  return {
    fetch: (path, init) => fetch(`http://127.0.0.1:${port}${path}`, init),
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
