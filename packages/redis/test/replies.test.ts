import { RedisStore } from '@sms-webhooks/redis';
import { type RedisServer, startRedisServer } from '@sms-webhooks/test-helpers/redis-server';
import { Redis } from 'ioredis';
import { createClient, RESP_TYPES } from 'redis';
import { type Connected, connect } from './clients.js';
import { runPrefix, sleep } from './harness.js';

// How RedisStore reads what a real server answers: Buffers, silence, and (unit only) nonsense.
let server: RedisServer;
let redis: Connected;
const HOUR = 3_600_000;
const uniq = () => `evt_${Math.random().toString(36).slice(2)}`;

beforeAll(async () => {
  server = await startRedisServer();
  redis = await connect('ioredis', server.url);
});

afterAll(async () => {
  await redis?.close();
  await server?.stop();
});

describe('RedisStore: Buffer replies from a real server', () => {
  it('reads ioredis callBuffer replies (Buffers for every bulk string)', async () => {
    const client = new Redis(server.url);
    try {
      const store = new RedisStore({
        prefix: runPrefix('buf-io'),
        sendCommand: (command, ...args) => client.callBuffer(command!, ...args),
      });
      expect(await client.callBuffer('ECHO', 'x')).toBeInstanceOf(Buffer); // the replies really are Buffers
      const id = uniq();
      expect(await store.claim(id, 't', HOUR)).toBe('claimed');
      expect(await store.claim(id, 'u', HOUR)).toBe('in-flight');
      expect(await store.complete(id, 't', HOUR)).toBe(true);
      expect(await store.claim(id, 'u', HOUR)).toBe('completed');
    } finally {
      client.disconnect();
    }
  });

  it('reads node-redis v5 replies mapped to Buffers', async () => {
    const client = createClient({
      url: server.url,
      commandOptions: { typeMapping: { [RESP_TYPES.BLOB_STRING]: Buffer } },
    });
    client.on('error', () => {});
    await client.connect();
    try {
      const store = new RedisStore({ client, clientType: 'node-redis', prefix: runPrefix('buf-nr') });
      expect(await client.sendCommand(['ECHO', 'x'])).toBeInstanceOf(Buffer);
      const id = uniq();
      expect(await store.claim(id, 't', HOUR)).toBe('claimed');
      expect(await store.release(id, 't')).toBe(true);
      expect(await store.claim(id, 'u', HOUR)).toBe('claimed');
    } finally {
      await client.disconnect();
    }
  });
});

describe('RedisStore: a server that does not answer', () => {
  it('rejects with ERR_SMS_REDIS_TIMEOUT, then frees the claim that lands late', async () => {
    const client = await connect('ioredis', server.url);
    try {
      // 500 ms: the warm-up claim must succeed even on a loaded machine; the pause outlasts it many times.
      const store = client.store({ prefix: runPrefix('pause'), commandTimeoutMs: 500 });
      const id = uniq();
      await store.claim(uniq(), 't', HOUR); // caches the script, so the late claim is one EVALSHA
      // CLIENT PAUSE holds every client's commands server-side (works without the debug command,
      // so also against a REDIS_URL server); the claim is sent and gets no answer until it ends.
      await redis.command('CLIENT', 'PAUSE', '3000', 'ALL');
      const pausedAt = Date.now();
      await expect(store.claim(id, 't', HOUR)).rejects.toMatchObject({
        name: 'RedisStoreError',
        code: 'ERR_SMS_REDIS_TIMEOUT',
      });
      // The premise: the claim timed out while the pause still held it.
      expect(Date.now() - pausedAt).toBeLessThan(3000);
      // After the pause the claim runs and wins; nobody processes under it, so the store releases it.
      let value: unknown = 'p:t';
      for (let i = 0; i < 100 && value !== null; i++) {
        await sleep(50);
        value = await redis.command('GET', store.keyFor(id));
      }
      expect(value).toBeNull();
      expect(await store.claim(id, 'retry', HOUR)).toBe('claimed');
    } finally {
      await client.close();
    }
  });
});

describe('RedisStore: a claimWithOrder that does not answer', () => {
  it('rejects with ERR_SMS_REDIS_TIMEOUT, then frees the event and its object once it lands', async () => {
    const client = await connect('ioredis', server.url);
    try {
      const store = client.store({ prefix: runPrefix('pause-both'), commandTimeoutMs: 500 });
      const [id, object] = [uniq(), `message:${uniq()}`];
      const slot = { key: object, version: '000000000000002.2', retainMs: HOUR };
      // Caches the script, so the late claim is one EVALSHA.
      await store.claimWithOrder(uniq(), 't', HOUR, { ...slot, key: `message:${uniq()}` });
      await redis.command('CLIENT', 'PAUSE', '3000', 'ALL');
      const pausedAt = Date.now();
      await expect(store.claimWithOrder(id, 't', HOUR, slot)).rejects.toMatchObject({
        code: 'ERR_SMS_REDIS_TIMEOUT',
      });
      expect(Date.now() - pausedAt).toBeLessThan(3000);
      let value: unknown = 'p:t';
      for (let i = 0; i < 100 && value !== null; i++) {
        await sleep(50);
        value = await redis.command('GET', store.keyFor(id));
      }
      expect(value).toBeNull();
      // The object's lease went with it: another event of the message is claimed, not 409.
      expect(await store.claimWithOrder(uniq(), 'next', HOUR, slot)).toBe('claimed');
    } finally {
      await client.close();
    }
  });
});

describe('RedisStore: replies no Redis gives', () => {
  // Unit test on purpose: a real Redis only ever answers these scripts with 'claimed' / 'in-flight' /
  // 'completed' / 0 / 1 or an error, so an 'OK' can only come from something in between (a proxy, a
  // non-Redis server). No real server can produce it, hence the stand-in sendCommand.
  it('rejects an unexpected reply with ERR_SMS_REDIS_REPLY', async () => {
    const store = new RedisStore({ sendCommand: async () => 'OK' });
    await expect(store.claim(uniq(), 't', HOUR)).rejects.toMatchObject({ code: 'ERR_SMS_REDIS_REPLY' });
    await expect(store.release(uniq(), 't')).rejects.toMatchObject({ code: 'ERR_SMS_REDIS_REPLY' });
    await expect(
      store.claimWithOrder(uniq(), 't', HOUR, { key: 'message:m', version: '1', retainMs: HOUR }),
    ).rejects.toMatchObject({ code: 'ERR_SMS_REDIS_REPLY' });
  });
});
