import { createHash } from 'node:crypto';
import { createReceiver } from '@sms-webhooks/core';
import { RedisStore } from '@sms-webhooks/redis';
import { type RedisServer, startRedisServer } from '@sms-webhooks/test-helpers/redis-server';
import { CLAIM, COMPLETE, RELEASE, RENEW } from '../src/scripts.js';
import { type Connected, connect } from './clients.js';
import { runPrefix } from './harness.js';

let server: RedisServer;
let redis: Connected;
const HOUR = 3_600_000;

beforeAll(async () => {
  server = await startRedisServer();
  redis = await connect('ioredis', server.url);
});

afterAll(async () => {
  await redis?.close();
  await server?.stop();
});

const uniq = () => `evt_${Math.random().toString(36).slice(2)}`;

/** A store over ioredis that records every command it sends to the real server. */
function recordingStore(prefix = runPrefix('rec')) {
  const sent: string[][] = [];
  const store = new RedisStore({
    prefix,
    sendCommand: (...args) => {
      sent.push(args);
      return redis.command(...args);
    },
  });
  return { store, sent };
}

describe('RedisStore: scripts', () => {
  it('runs EVALSHA, falls back to EVAL once after SCRIPT FLUSH, then uses EVALSHA again', async () => {
    const { store, sent } = recordingStore();
    await store.claim(uniq(), 'a', HOUR); // loads the claim script if this server has not seen it yet
    await redis.command('SCRIPT', 'FLUSH');
    sent.length = 0;

    const id = uniq();
    expect(await store.claim(id, 'a', HOUR)).toBe('claimed');
    expect(sent.map((c) => c[0])).toEqual(['EVALSHA', 'EVAL']);
    expect(sent[0]![1]).toBe(CLAIM.sha1);

    sent.length = 0;
    expect(await store.claim(id, 'b', HOUR)).toBe('in-flight');
    expect(sent.map((c) => c[0])).toEqual(['EVALSHA']);
  });

  it('sends EVAL only on NOSCRIPT, never on other errors (a real WRONGTYPE)', async () => {
    const { store, sent } = recordingStore();
    // Cache both scripts first, so EVALSHA reaches the key and a NOSCRIPT cannot be the reason for EVAL.
    const warm = uniq();
    await store.claim(warm, 'a', HOUR);
    await store.release(warm, 'a');
    const id = uniq();
    // A list where the store expects a string: SET NX declines, then the script's GET fails WRONGTYPE.
    await redis.command('LPUSH', store.keyFor(id), 'not-a-claim');
    sent.length = 0;
    await expect(store.claim(id, 'a', HOUR)).rejects.toThrow(/WRONGTYPE/);
    await expect(store.release(id, 'a')).rejects.toThrow(/WRONGTYPE/);
    expect(sent.map((c) => c[0])).toEqual(['EVALSHA', 'EVALSHA']);
    expect(await redis.command('LRANGE', store.keyFor(id), '0', '-1')).toEqual(['not-a-claim']);
  });

  it('renew runs EVALSHA and falls back to EVAL once after SCRIPT FLUSH, as the others do', async () => {
    const { store, sent } = recordingStore();
    const id = uniq();
    await store.claim(id, 'a', HOUR);
    expect(await store.renew(id, 'a', HOUR)).toBe(true); // loads the renew script
    await redis.command('SCRIPT', 'FLUSH');
    sent.length = 0;
    expect(await store.renew(id, 'a', HOUR)).toBe(true);
    expect(sent.map((c) => c[0])).toEqual(['EVALSHA', 'EVAL']);
    expect(sent[0]![1]).toBe(RENEW.sha1);
    sent.length = 0;
    expect(await store.renew(id, 'b', HOUR)).toBe(false);
    expect(sent.map((c) => c[0])).toEqual(['EVALSHA']);
  });

  it('script SHA-1s match what the server computes', async () => {
    for (const script of [CLAIM, COMPLETE, RELEASE, RENEW]) {
      expect(await redis.command('SCRIPT', 'LOAD', script.source)).toBe(script.sha1);
    }
  });
});

describe('RedisStore: key layout', () => {
  const store = (prefix?: string) =>
    new RedisStore({ client: redis.client, clientType: 'ioredis', ...(prefix ? { prefix } : {}) });

  it('stores p:<token> with the lease as TTL, then c:<token> with the retention', async () => {
    const prefix = runPrefix('layout');
    const s = store(prefix);
    const id = uniq();
    await s.claim(id, 'tok1', 60_000);
    expect(await redis.command('GET', `${prefix}id:${id}`)).toBe('p:tok1');
    const lease = Number(await redis.command('PTTL', `${prefix}id:${id}`));
    expect(lease).toBeGreaterThan(50_000);
    expect(lease).toBeLessThanOrEqual(60_000);

    await s.complete(id, 'tok1', HOUR);
    expect(await redis.command('GET', `${prefix}id:${id}`)).toBe('c:tok1');
    expect(Number(await redis.command('PTTL', `${prefix}id:${id}`))).toBeGreaterThan(HOUR - 10_000);
  });

  it('renew keeps p:<token> and sets its TTL to the new lease; other states are left alone', async () => {
    const prefix = runPrefix('renew');
    const s = store(prefix);
    const id = uniq();
    const key = `${prefix}id:${id}`;
    await s.claim(id, 'tok1', 1000);
    expect(await s.renew(id, 'tok1', HOUR)).toBe(true);
    expect(await redis.command('GET', key)).toBe('p:tok1');
    expect(Number(await redis.command('PTTL', key))).toBeGreaterThan(HOUR - 10_000);
    expect(await s.renew(id, 'tok1', 2000)).toBe(true); // to leaseMs from now, shorter too
    expect(Number(await redis.command('PTTL', key))).toBeLessThanOrEqual(2000);

    await s.complete(id, 'tok1', HOUR);
    expect(await s.renew(id, 'tok1', 1000)).toBe(false);
    expect(await redis.command('GET', key)).toBe('c:tok1');
    expect(Number(await redis.command('PTTL', key))).toBeGreaterThan(HOUR - 10_000);

    // A token that reads as the completed marker's suffix cannot renew it.
    expect(await s.renew(id, 'c:tok1', 1000)).toBe(false);
    await expect(s.renew(id, 'tok1', 0)).rejects.toThrow(/leaseMs must be a positive/);
  });

  it('uses the default prefix sms-webhooks:', async () => {
    const id = uniq(); // random, so the fixed default prefix is safe to re-run
    await store().claim(id, 't', HOUR);
    expect(await redis.command('EXISTS', `sms-webhooks:id:${id}`)).toBe(1);
  });

  it('hashes ids longer than 200 bytes so keys stay bounded', async () => {
    const prefix = runPrefix('long');
    const s = store(prefix);
    const id = `evt_${'é'.repeat(5000)}`;
    const key = `${prefix}sha256:${createHash('sha256').update(id).digest('hex')}`;
    expect(s.keyFor(id)).toBe(key);
    expect(await s.claim(id, 't', HOUR)).toBe('claimed');
    expect(await redis.command('GET', key)).toBe('p:t');
    expect(s.keyFor(`evt_${'x'.repeat(196)}`)).toBe(`${prefix}id:evt_${'x'.repeat(196)}`);
  });

  it('a token that looks like a completed marker is still in flight', async () => {
    const s = store(runPrefix('odd'));
    const id = uniq();
    await s.claim(id, 'c:sneaky', HOUR);
    expect(await s.claim(id, 'other', HOUR)).toBe('in-flight');
  });

  it('rounds fractional durations up and refuses non-positive ones', async () => {
    const s = store(runPrefix('dur'));
    const id = uniq();
    expect(await s.claim(id, 't', 0.4)).toBe('claimed');
    await expect(s.claim(uniq(), 't', 0)).rejects.toThrow(/leaseMs must be a positive/);
    await expect(s.complete(id, 't', Number.NaN)).rejects.toThrow(/retainMs must be a positive/);
  });
});

describe('RedisStore: options', () => {
  it('declares localKeys false', () => {
    expect(new RedisStore({ client: redis.client, clientType: 'ioredis' }).localKeys).toBe(false);
  });

  // Unit only, and rightly so: the constructor refuses these before any command is sent, so no server
  // is involved; `one` is never called.
  const one = async (): Promise<unknown> => 1;
  it.each<[object, RegExp]>([
    [{}, /pass either|sendCommand must be a function/],
    [{ client: {} }, /say which client/],
    [{ client: {}, clientType: 'ioredis' }, /needs a client with a call\(\) method/],
    [{ client: {}, clientType: 'node-redis' }, /needs a client with a sendCommand\(\) method/],
    [{ client: {}, clientType: 'redis-py' }, /clientType must be/],
    [{ sendCommand: one, client: {} }, /either client or sendCommand/],
    [{ sendCommand: one, commandTimeoutMs: 0 }, /`commandTimeoutMs` must be a positive number/],
    // From an environment variable: the message names the type, not just `got 1000`.
    [
      { sendCommand: one, commandTimeoutMs: '1000' },
      /^@sms-webhooks\/redis: `commandTimeoutMs` must be a positive number of ms \(or Infinity\), got the string "1000"\.$/,
    ],
    [{ sendCommand: one, prefix: 3 }, /prefix must be a string/],
  ])('refuses bad options %#', (options, message) => {
    let error: unknown;
    try {
      new RedisStore(options as never);
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ name: 'RedisStoreError', code: 'ERR_SMS_REDIS_OPTIONS' });
    expect((error as Error).message).toMatch(message);
  });

  it('leaves the client open when the receiver closes', async () => {
    const store = new RedisStore({ client: redis.client, clientType: 'ioredis' });
    const receiver = createReceiver({ secret: 'whsec_close0123456789abcdef', store });
    await receiver.close();
    expect(await redis.command('PING')).toBe('PONG');
  });
});
