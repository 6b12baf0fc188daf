import type { DedupeStore, Logger } from '@sms-webhooks/core';

export const secret = 'whsec_c0ffee0123456789abcdef0123456789';

/** A logger that keeps every line, so tests can read what was logged. */
export function captureLogger(): Logger & { lines: string[]; text(): string } {
  const lines: string[] = [];
  const keep =
    (level: string) =>
    (...args: unknown[]) =>
      lines.push(
        `${level} ${args.map((a) => (a instanceof Error ? `${a.message} ${a.stack}` : String(a))).join(' ')}`,
      );
  return { lines, warn: keep('warn'), error: keep('error'), text: () => lines.join('\n') };
}

/** A store whose every operation fails, as a store whose server is down does. */
export function brokenStore(message = 'connect ECONNREFUSED 127.0.0.1:6399'): DedupeStore {
  const fail = () => Promise.reject(new Error(message));
  return { localKeys: false, claim: fail, complete: fail, release: fail };
}

export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
