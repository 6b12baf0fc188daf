import { createReceiver, MemoryStore } from '@sms-webhooks/core';
import { type RedisServer, startRedisServer } from '@sms-webhooks/test-helpers/redis-server';
import { type Connected, connect } from './clients.js';
import { captureLogger, runPrefix, secret } from './harness.js';

let server: RedisServer;
let redis: Connected;

beforeAll(async () => {
  server = await startRedisServer();
  redis = await connect('ioredis', server.url);
});

afterAll(async () => {
  await redis?.close();
  await server?.stop();
});

describe('start-up warning in production', () => {
  const saved = process.env.NODE_ENV;
  afterEach(() => {
    process.env.NODE_ENV = saved;
  });

  it('warns about a per-process MemoryStore with NODE_ENV=production and points at RedisStore', () => {
    process.env.NODE_ENV = 'production';
    const logger = captureLogger();
    createReceiver({ secret, store: new MemoryStore(), logger });
    createReceiver({ secret, logger }); // the default store is a MemoryStore too
    expect(logger.lines).toHaveLength(2);
    for (const line of logger.lines) expect(line).toMatch(/^warn .*RedisStore from @sms-webhooks\/redis/);
  });

  it('stays quiet with a RedisStore in production, and with a MemoryStore outside production', async () => {
    const logger = captureLogger();
    process.env.NODE_ENV = 'production';
    const store = redis.store({ prefix: runPrefix('prod') });
    createReceiver({ secret, store, logger });
    process.env.NODE_ENV = 'development';
    createReceiver({ secret, store: new MemoryStore(), logger });
    expect(logger.lines).toEqual([]);
    expect(await store.claim('evt_prod_check', 't', 1000)).toBe('claimed'); // the store is a live one
  });
});
