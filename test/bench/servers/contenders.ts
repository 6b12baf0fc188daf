import type { DedupeStore, Receiver } from '@sms-webhooks/core';
import { createReceiver, MemoryStore } from '@sms-webhooks/core';
import Stripe from 'stripe';
import { byHand } from '../lib/by-hand.js';
import { BENCH_SECRET } from '../lib/fixtures.js';
import { handVerify } from '../lib/hand-written.js';
import { limitWork } from '../lib/limit.js';

export type Framework = 'express' | 'fastify' | 'koa';
/**
 * - `ours`: the framework adapter, MemoryStore, a no-op handler after the ack;
 * - `hand`, `stripe`: the framework's raw-body route verifying by hand or with Stripe's recipe;
 * - `byhand`: ours' whole job by hand on the framework's raw-body route (issue 48; lib/by-hand.ts):
 *   verify, the 300 s check, parse, dedupe in a Map, answer, then run the handler;
 * - `empty`: the framework's raw-body route answering 200 without verifying;
 * - `limit`: `empty` plus a bare HMAC-SHA256 of the body and `JSON.parse` (lib/limit.ts): the least
 *   any verifying receiver does on that framework;
 * - `rawbody`: ours with the body read by raw-body's callback form instead of core's reader (issue 28
 *   point 2; servers/raw-body-variant.ts).
 */
export type ContenderName = 'ours' | 'byhand' | 'hand' | 'stripe' | 'empty' | 'limit' | 'rawbody';
/** The contenders that read the body through the framework's own raw-body route and only check it. */
export type RouteContender = Exclude<ContenderName, 'ours' | 'rawbody' | 'byhand'>;

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

/** What each route contender does with the raw body: check it and parse it (or throw), or nothing. */
export function recipe(contender: RouteContender): (body: Buffer, header: unknown) => unknown {
  if (contender === 'empty') return () => undefined;
  if (contender === 'limit') return limitWork;
  if (contender === 'stripe') {
    return (body, header) => stripe.webhooks.constructEvent(body, header as string, BENCH_SECRET);
  }
  return (body, header) => handVerify(body, header, BENCH_SECRET);
}

/** The `byhand` contender's receiver: its handler counts the event, as ours' does. */
export function makeByHand() {
  return byHand(BENCH_SECRET, async () => {
    counters.accepted++;
  });
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
