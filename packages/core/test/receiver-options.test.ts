import { createReceiver, MemoryStore } from '@sms-webhooks/core';
import { Redis } from 'ioredis';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { captureLogger, secret } from './helpers.js';

describe('createReceiver option mistakes fail at start-up, saying how to fix them', () => {
  it('shows the type of a wrong value: a number option given a string from the environment', () => {
    expect(() => createReceiver({ secret, leaseMs: '5000' as never })).toThrow(
      'sms-webhooks: `leaseMs` must be a positive integer, got the string "5000".',
    );
    expect(() => createReceiver({ secret, tolerance: null as never })).toThrow(/got null\.$/);
    expect(() => createReceiver({ secret, maxBodyBytes: 1.5 })).toThrow(/got 1\.5\.$/);
    expect(() => createReceiver({ secret, respond: 1 as never })).toThrow(
      "`respond` must be 'immediately' or 'after-handlers', got 1.",
    );
  });

  it('every option error carries the code ERR_SMS_OPTIONS', () => {
    let error: unknown;
    try {
      createReceiver({ secret, retainMs: -1 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TypeError);
    expect((error as { code?: string }).code).toBe('ERR_SMS_OPTIONS');
  });

  it('refuses `respond` together with `dispatch`, which would silently ignore it', () => {
    const dispatch = async () => {};
    for (const respond of ['immediately', 'after-handlers'] as const) {
      expect(() => createReceiver({ secret, dispatch, respond })).toThrow(
        /`respond` does nothing with `dispatch`.*Remove `respond`/,
      );
    }
    expect(() => createReceiver({ secret, dispatch })).not.toThrow();
  });

  it('a Redis client passed straight as `store` is told to wrap it in RedisStore', () => {
    const client = new Redis({ lazyConnect: true });
    try {
      expect(() => createReceiver({ secret, store: client as never })).toThrow(
        /`store` is a Redis client, not a dedupe store: wrap it, `store: new RedisStore\(\{ client, clientType: 'ioredis' \}\)`/,
      );
    } finally {
      client.disconnect();
    }
  });

  it('a pg Pool passed straight as `store` is told to wrap it in PostgresStore', async () => {
    const pool = new pg.Pool({ max: 1 });
    try {
      expect(() => createReceiver({ secret, store: pool as never })).toThrow(
        /`store` is a PostgreSQL client, not a dedupe store: wrap it, `store: new PostgresStore\(\{ pool \}\)`/,
      );
    } finally {
      await pool.end();
    }
  });

  it('warns once at start-up about a secret without the whsec_ prefix, and not about one with it', () => {
    const logger = captureLogger();
    createReceiver({ secret: 'sk_test_0123456789', logger, store: new MemoryStore() });
    expect(logger.lines).toHaveLength(1);
    expect(logger.text()).toMatch(/`secret` does not start with whsec_.*not the API key/);
    expect(logger.text()).not.toContain('sk_test_0123456789');
    const quiet = captureLogger();
    createReceiver({ secret: ['whsec_new', 'whsec_old'], logger: quiet });
    expect(quiet.lines).toEqual([]);
    const rotating = captureLogger();
    createReceiver({ secret: ['whsec_new', 'old-one'], logger: rotating });
    expect(rotating.text()).toMatch(/secret\[1\] does not start with whsec_/);
  });
});
