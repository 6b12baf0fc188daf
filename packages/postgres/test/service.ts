import { type ChildProcess, fork } from 'node:child_process';
import { createTestDelivery, type TestDelivery } from '@sms-webhooks/core';
import { nodeProgram } from '@sms-webhooks/test-helpers/node-program';
import { secret } from '@sms-webhooks/test-helpers/postgres-db';
import type { InstanceConfig } from './instance.js';

const INSTANCE = new URL('./instance.ts', import.meta.url);

export interface Instance {
  config: InstanceConfig;
  child: ChildProcess;
  url: string;
  exited: Promise<void>;
  stop(): Promise<void>;
}

/** Forks instance.ts and resolves once it listens. */
export async function startInstance(config: InstanceConfig): Promise<Instance> {
  // Bundled once per test file: the crash tests start a few hundred instances, and tsx's per-module
  // loader cost each about a second of CPU.
  const child = fork(await nodeProgram(INSTANCE), [JSON.stringify(config)], {
    execArgv: ['--enable-source-maps'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve(m.port));
    child.once('exit', (code, signal) =>
      reject(new Error(`instance ${config.name} exited (${code ?? signal})`)),
    );
  });
  return {
    config,
    child,
    url: `http://127.0.0.1:${port}/webhooks`,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

export function deliveries(n: number): TestDelivery<'message.delivered'>[] {
  return Array.from({ length: n }, () => createTestDelivery('message.delivered', { secret }));
}

export interface Answer {
  status: number;
  duplicate: boolean;
  /** The error code of a refusal (`store_unavailable`, `in_flight`, …), or with status 0 why none came. */
  code?: string;
}

/** POSTs one delivery as the service would, with its attempt number; a dead instance is status 0. */
export async function deliver(
  url: string,
  delivery: TestDelivery<'message.delivered'>,
  attempt: number,
): Promise<Answer> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      body: delivery.body,
      headers: { ...delivery.headers, 'x-service-delivery-attempt': String(attempt) },
    });
    const body = (await res.json()) as { duplicate?: boolean; error?: { code?: string } };
    const answer: Answer = { status: res.status, duplicate: body.duplicate === true };
    if (body.error?.code !== undefined) answer.code = body.error.code;
    return answer;
  } catch (error) {
    // No answer: the instance is dead, or the connection closed under the request. The cause's code says
    // which (ECONNREFUSED, UND_ERR_SOCKET, ...).
    const cause = (error as { cause?: { code?: unknown } }).cause;
    return { status: 0, duplicate: false, code: String(cause?.code ?? (error as Error).name) };
  }
}

/**
 * An instance that is started again whenever it dies, as a process manager would, with the next one
 * already booting: a kill -9 costs no start-up wait. `current()` is a live instance (or the one about
 * to be found dead); `restarts` counts the deaths.
 */
export function supervised(config: InstanceConfig) {
  let spare = startInstance(config);
  let live: Instance | undefined;
  const all: Instance[] = [];
  return {
    restarts: 0,
    async current(): Promise<Instance> {
      if (live && live.child.exitCode === null && live.child.signalCode === null) return live;
      if (live) this.restarts++;
      live = await spare;
      all.push(live);
      spare = startInstance(config);
      return live;
    },
    async stop() {
      all.push(await spare);
      await Promise.all(all.map((i) => i.stop()));
    },
  };
}
