import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { type EnqueueOptions, enqueueTo } from '@sms-webhooks/bullmq';
import { createReceiver, type DedupeStore, type ReceiverOptions } from '@sms-webhooks/core';
import { RedisStore } from '@sms-webhooks/redis';
import { captureLogger } from '@sms-webhooks/test-helpers';
import { type RedisServer, startRedisServer } from '@sms-webhooks/test-helpers/redis-server';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll } from 'vitest';

export { captureLogger, waitFor } from '@sms-webhooks/test-helpers';

export const secret = 'whsec_bullmq0123456789abcdef01234567';

export function uniqueName(prefix = 'q'): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

export interface Closer {
  add<T extends { close(): Promise<unknown> } | { quit(): Promise<unknown> }>(thing: T): T;
  closeAll(): Promise<void>;
}

/** Collects queues, workers and clients so each test closes what it opened, in reverse order. */
export function closer(): Closer {
  const things: Array<() => Promise<unknown>> = [];
  return {
    add(thing) {
      const t = thing as { close?: () => Promise<unknown>; quit?: () => Promise<unknown> };
      things.push(() => (t.close ? t.close() : t.quit!()).catch(() => {}));
      return thing;
    },
    async closeAll() {
      for (const close of things.reverse()) await close();
      things.length = 0;
    },
  };
}

/** A RedisStore on its own ioredis client, as a separate process would have. */
export async function redisStore(url: string, c: Closer): Promise<DedupeStore> {
  const client = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
  client.on('error', () => {});
  c.add(client);
  await once(client, 'ready');
  return new RedisStore({ client, clientType: 'ioredis' });
}

/** The receiver process: verifies, claims, enqueues. Handlers are registered only for routing. */
export function queueReceiver(
  c: Closer,
  opts: {
    url: string;
    queueName: string;
    store: DedupeStore;
    enqueue?: EnqueueOptions;
  } & Partial<ReceiverOptions>,
) {
  const { url, queueName, store, enqueue, ...rest } = opts;
  const { hostname, port } = new URL(url);
  const queue = c.add(
    new Queue(queueName, { connection: { host: hostname, port: Number(port), enableOfflineQueue: false } }),
  );
  queue.on('error', () => {});
  const logger = captureLogger();
  const receiver = createReceiver({ secret, store, logger, dispatch: enqueueTo(queue, enqueue), ...rest });
  receiver.on('message.delivered', () => {
    throw new Error('handlers must not run in the receiver process');
  });
  return { queue, receiver, logger };
}

export function connectionOf(url: string) {
  const { hostname, port } = new URL(url);
  return { host: hostname, port: Number(port) };
}

/**
 * The set-up every queue test file shares: one redis-server for the file (or describe block), and a
 * closer emptied after each test. Call at the top level of the file or of a describe.
 */
export function useRedisServer(): { readonly url: string; closer: Closer } {
  let server: RedisServer | undefined;
  const c = closer();
  beforeAll(async () => {
    server = await startRedisServer({ local: true });
  });
  afterEach(() => c.closeAll());
  afterAll(() => server?.stop());
  return {
    get url() {
      if (!server) throw new Error('useRedisServer: the server starts in beforeAll; read url inside a test');
      return server.url;
    },
    closer: c,
  };
}
