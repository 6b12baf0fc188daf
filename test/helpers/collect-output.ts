import type { ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Keeps all a spawned process prints; resolves once it has exited and its output is closed. */
export function collectOutput(
  child: ChildProcessByStdio<Writable | null, Readable, Readable>,
): Promise<Finished> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += c;
    });
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
