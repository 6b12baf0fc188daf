import type { DedupeStore, Receiver } from '@sms-webhooks/core';
import { createReceiver, MemoryStore } from '@sms-webhooks/core';
import Stripe from 'stripe';
import { BENCH_SECRET } from '../lib/fixtures.js';
import { handVerify } from '../lib/hand-written.js';

export type Framework = 'express' | 'fastify' | 'koa';
export type ContenderName = 'ours' | 'hand' | 'stripe';

export interface ServerConfig {
  framework: Framework;
  contender: ContenderName;
  store: 'memory' | 'redis';
  redisUrl?: string;
  /** Body limit for every contender (ours: maxBodyBytes). */
  maxBodyBytes: number;
  /** Ours: how long a body may take to arrive. Default the receiver's (10 s). */
  bodyTimeoutMs?: number;
  /** Handlers wait this long: lets the Redis probe see what runs before the response. */
  handlerDelayMs?: number;
}

export const PATH = '/webhooks';
export const RECEIVED_JSON = { received: true };

/** Counts what reached the application: every accepted event, whichever contender accepted it. */
export const counters = { accepted: 0, refused: 0 };

const stripe = new Stripe('sk_test_x');

/** The two hand-rolled recipes: check the raw body, parse it, or throw. */
export function recipe(
  contender: Exclude<ContenderName, 'ours'>,
): (body: Buffer, header: unknown) => unknown {
  if (contender === 'stripe') {
    return (body, header) => stripe.webhooks.constructEvent(body, header as string, BENCH_SECRET);
  }
  return (body, header) => handVerify(body, header, BENCH_SECRET);
}

export async function makeStore(
  config: ServerConfig,
): Promise<{ store: DedupeStore; close(): Promise<void> }> {
  if (config.store === 'memory') return { store: new MemoryStore(), close: async () => {} };
  const [{ Redis }, { RedisStore }] = await Promise.all([import('ioredis'), import('@sms-webhooks/redis')]);
  const client = new Redis(config.redisUrl!, { lazyConnect: false });
  await client.ping();
  return {
    store: new RedisStore({ client, clientType: 'ioredis' }),
    close: async () => void (await client.quit()),
  };
}

export function makeReceiver(config: ServerConfig, store: DedupeStore): Receiver {
  const receiver = createReceiver({
    secret: BENCH_SECRET,
    store,
    maxBodyBytes: config.maxBodyBytes,
    bodyTimeoutMs: config.bodyTimeoutMs,
  });
  const delay = config.handlerDelayMs ?? 0;
  receiver.on('message.delivered', async () => {
    counters.accepted++;
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
  });
  return receiver;
}
