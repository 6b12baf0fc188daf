import { RedisStore } from '@sms-webhooks/redis';
import { type RedisServer, startRedisServer } from '@sms-webhooks/test-helpers/redis-server';
import { Cluster } from 'ioredis';
import { createCluster } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_KINDS, type Connected, connect } from './clients.js';
import { runPrefix } from './harness.js';

/** The error the constructor throws, or undefined. */
function constructing(options: unknown): unknown {
  try {
    new RedisStore(options as never);
  } catch (error) {
    return error;
  }
  return undefined;
}

let server: RedisServer;
const clients = new Map<string, Connected>();

beforeAll(async () => {
  server = await startRedisServer();
  for (const kind of CLIENT_KINDS) clients.set(kind, await connect(kind, server.url));
});

afterAll(async () => {
  for (const client of clients.values()) await client.close();
  await server?.stop();
});

describe('RedisStore: a clientType that does not match the client fails at construction', () => {
  // An ioredis client has a sendCommand() of its own (taking an ioredis Command): before, it passed the
  // method check, and every claim then failed with `command.setReplyContext is not a function` (a 503).
  it.each(['node-redis', 'node-redis-cluster'])('ioredis declared %s', (clientType) => {
    const error = constructing({ client: clients.get('ioredis')!.client, clientType });
    expect(error).toMatchObject({ name: 'RedisStoreError', code: 'ERR_SMS_REDIS_OPTIONS' });
    expect((error as Error).message).toBe(
      `@sms-webhooks/redis: clientType '${clientType}' was given an ioredis client (it has call() and a status): ` +
        "pass clientType: 'ioredis' for ioredis' Redis and Cluster.",
    );
  });

  it('an ioredis Cluster declared node-redis-cluster', () => {
    const cluster = new Cluster([{ host: '127.0.0.1', port: server.port }], { lazyConnect: true });
    try {
      const error = constructing({ client: cluster, clientType: 'node-redis-cluster' });
      expect(error).toMatchObject({ code: 'ERR_SMS_REDIS_OPTIONS' });
      expect((error as Error).message).toMatch(/was given an ioredis client .* pass clientType: 'ioredis'/);
    } finally {
      cluster.disconnect();
    }
  });

  it.each(['node-redis v5', 'node-redis v4'])(
    '%s declared ioredis (the direction refused already)',
    (kind) => {
      const error = constructing({ client: clients.get(kind)!.client, clientType: 'ioredis' });
      expect(error).toMatchObject({ code: 'ERR_SMS_REDIS_OPTIONS' });
      expect((error as Error).message).toMatch(/needs a client with a call\(\) method/);
    },
  );

  it('a node-redis cluster client declared node-redis-cluster is accepted (no false alarm)', () => {
    const cluster = createCluster({ rootNodes: [{ url: server.url }] });
    expect(constructing({ client: cluster, clientType: 'node-redis-cluster' })).toBeUndefined();
  });

  it.each(CLIENT_KINDS)(
    '%s with its right clientType is accepted and claims on the real server',
    async (kind) => {
      const client = clients.get(kind)!;
      const store = client.store({ prefix: runPrefix('client-type') });
      expect(await store.claim('evt_client_type', 'token-1', 60_000)).toBe('claimed');
      expect(await store.claim('evt_client_type', 'token-2', 60_000)).toBe('in-flight');
    },
  );
});
