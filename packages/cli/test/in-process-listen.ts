import { run } from '@sms-webhooks/cli';
import { stateFile as defaultStateFile } from './helpers.js';

export interface InProcessListen {
  /** Every stdout line so far. */
  lines: string[];
  stderr(): string;
  /** Resolves with the first line (seen or to come) matching `pattern`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Ctrl-C: resolves with the exit code. */
  stop(): Promise<number>;
}

/** `sms-webhooks listen …` run in this process (no tsx start-up), stopped through its abort signal. */
export function listenInProcess(
  args: string[],
  env: Record<string, string | undefined> = {},
): InProcessListen {
  const controller = new AbortController();
  const lines: string[] = [];
  let partial = '';
  let stderr = '';
  const waiters: { pattern: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  const exited = run(['listen', ...args], {
    stdout: (s) => {
      partial += s;
      const parts = partial.split('\n');
      partial = parts.pop()!;
      for (const line of parts) {
        lines.push(line);
        for (const w of [...waiters]) {
          const m = w.pattern.exec(line);
          if (m) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(m);
          }
        }
      }
    },
    stderr: (s) => {
      stderr += s;
    },
    env: { SMS_WEBHOOKS_STATE_FILE: defaultStateFile, ...env },
    signal: controller.signal,
  });
  return {
    lines,
    stderr: () => stderr,
    waitFor(pattern, timeoutMs = 20_000) {
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
            new Error(`ended before a line matching ${pattern}:\n${lines.join('\n')}\nstderr:\n${stderr}`),
          );
        });
      });
    },
    stop() {
      controller.abort();
      return exited;
    },
  };
}
