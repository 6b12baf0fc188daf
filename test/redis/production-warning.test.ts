import { createReceiver, MemoryStore } from '@sms-webhooks/core';
import { RedisStore } from '@sms-webhooks/redis';
import { captureLogger, secret } from './harness.js';

describe('start-up warning in production', () => {
  const saved = process.env.NODE_ENV;
  afterEach(() => {
    process.env.NODE_ENV = saved;
  });

  // No command is sent at construction, so no server is needed to check the start-up check.
  const redisStore = () => new RedisStore({ sendCommand: async () => 'claimed' });

  it('warns about a per-process MemoryStore with NODE_ENV=production and points at RedisStore', () => {
    process.env.NODE_ENV = 'production';
    const logger = captureLogger();
    createReceiver({ secret, store: new MemoryStore(), logger });
    createReceiver({ secret, logger }); // the default store is a MemoryStore too
    expect(logger.lines).toHaveLength(2);
    for (const line of logger.lines) expect(line).toMatch(/^warn .*RedisStore from @sms-webhooks\/redis/);
  });

  it('stays quiet with a RedisStore in production, and with a MemoryStore outside production', () => {
    const logger = captureLogger();
    process.env.NODE_ENV = 'production';
    createReceiver({ secret, store: redisStore(), logger });
    process.env.NODE_ENV = 'development';
    createReceiver({ secret, store: new MemoryStore(), logger });
    expect(logger.lines).toEqual([]);
  });
});
