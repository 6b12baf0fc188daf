/** The helpers every test suite shares: one copy each. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@sms-webhooks/core';

/** Keeps every logged line (with error messages and stacks), so tests can search what was logged. */
export function captureLogger(): Logger & { lines: string[]; text(): string } {
  const lines: string[] = [];
  const format = (a: unknown): string => {
    if (a instanceof Error) return `${a.name}: ${a.message}\n${a.stack ?? ''}`;
    if (typeof a === 'string') return a;
    try {
      return JSON.stringify(a);
    } catch {
      return String(a);
    }
  };
  const keep =
    (level: string) =>
    (...args: unknown[]) => {
      lines.push(`${level} ${args.map(format).join(' ')}`);
    };
  return { lines, warn: keep('warn'), error: keep('error'), text: () => lines.join('\n') };
}

/** A promise with its resolve and reject outside. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Waits `ms` milliseconds. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Polls until `check` returns a truthy value; fails with `what` after `timeoutMs`. The default is long
 * (30 s) because it waits on child processes, brokers and servers while other test files run beside this
 * one: it returns as soon as the check holds, so only a failure waits it out.
 */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  what: string,
  timeoutMs = 30_000,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** Rejects instead of hanging, so a stuck step fails the test with a message saying which. */
export function within<T>(promise: Promise<T>, what: string, ms = 5_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

export interface Listening {
  origin: string;
  url: string;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 and a free port; close() also drops kept-alive and half-sent connections. */
export async function listen(server: Server, path = '/'): Promise<Listening> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    url: `${origin}${path}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
