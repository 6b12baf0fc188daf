import { runDedupeStoreContract } from '@sms-webhooks/core/testing';
import { RedisStore } from '@sms-webhooks/redis';
import { type RedisServer, startRedisServer } from '@sms-webhooks/test-helpers/redis-server';
import { Cluster, Redis } from 'ioredis';
import { Cluster as ClusterV6 } from 'ioredis6';
import { createCluster as createClusterV6 } from 'redis';
import { createCluster as createClusterV4 } from 'redis4';
import { createCluster } from 'redis5';
import { sleep } from './harness.js';

// A one-node Redis Cluster owning every slot: enough to prove the scripts are single-key and that each
// client's cluster mode routes them (a cross-slot script would be refused with CROSSSLOT).
let server: RedisServer;
const closers: (() => Promise<unknown>)[] = [];
let ioredisCluster: Cluster;
let ioredisClusterV6: ClusterV6;
let nodeClusterV6: { sendCommand: unknown; connect(): Promise<unknown>; close(): Promise<void> };
let nodeCluster: { sendCommand: unknown; connect(): Promise<unknown>; close?(): Promise<void> };
let nodeClusterV4: { sendCommand: unknown; connect(): Promise<unknown>; disconnect(): Promise<void> };

beforeAll(async () => {
  server = await startRedisServer({
    local: true,
    args: ['--cluster-enabled', 'yes', '--cluster-announce-ip', '127.0.0.1'],
  });
  // Before slots are assigned the cluster is down; talk to the node directly to assign them.
  const node = new Redis(server.url);
  await node.call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383');
  for (let i = 0; !String(await node.call('CLUSTER', 'INFO')).includes('cluster_state:ok'); i++) {
    if (i > 200) throw new Error('the one-node cluster did not reach cluster_state:ok');
    await sleep(50);
  }
  node.disconnect();

  ioredisCluster = new Cluster([{ host: server.host, port: server.port }]);
  ioredisCluster.on('error', () => {});
  closers.push(async () => ioredisCluster.disconnect());

  ioredisClusterV6 = new ClusterV6([{ host: server.host, port: server.port }]);
  ioredisClusterV6.on('error', () => {});
  closers.push(async () => ioredisClusterV6.disconnect());

  const v6 = createClusterV6({ rootNodes: [{ url: server.url }] });
  v6.on('error', () => {});
  await v6.connect();
  nodeClusterV6 = v6 as unknown as typeof nodeClusterV6;
  closers.push(() => v6.close());

  const v5 = createCluster({ rootNodes: [{ url: server.url }] });
  v5.on('error', () => {});
  await v5.connect();
  nodeCluster = v5 as unknown as typeof nodeCluster;
  closers.push(() => v5.close());

  const v4 = createClusterV4({ rootNodes: [{ url: server.url }] });
  v4.on('error', () => {});
  await v4.connect();
  nodeClusterV4 = v4 as unknown as typeof nodeClusterV4;
  closers.push(() => v4.disconnect());
});

afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  await server?.stop();
});

describe('claimWithOrder on Redis Cluster', () => {
  const slot = (key: string) => ({ key, version: '000000000000001.2', retainMs: 60_000 });
  const id = () => `evt_${Math.random().toString(36).slice(2)}`;

  it('a cluster client it knows of: the two one-key scripts, never a two-key one', async () => {
    const keyCounts: string[] = [];
    const client = {
      isCluster: true,
      call: (command: string, ...args: string[]) => {
        keyCounts.push(args[1]!);
        return ioredisCluster.call(command, ...args);
      },
    };
    const store = new RedisStore({ client, clientType: 'ioredis', prefix: 'c-known:' });
    expect(await store.claimWithOrder(id(), 't', 60_000, slot('message:m1'))).toBe('claimed');
    expect(keyCounts.length).toBeGreaterThanOrEqual(2); // claim, claimOrder (and EVAL after a NOSCRIPT)
    expect(keyCounts).not.toContain('2');
  });

  it('sendCommand, which does not say: one CROSSSLOT (nothing ran), then the two calls from then on', async () => {
    const keyCounts: string[] = [];
    const errors: string[] = [];
    const store = new RedisStore({
      prefix: 'c-learn:',
      sendCommand: (command, ...args) => {
        keyCounts.push(args[1]!);
        return ioredisCluster.call(command!, ...args).catch((error: Error) => {
          errors.push(error.message.split(' ')[0]!);
          throw error;
        });
      },
    });
    const first = id();
    expect(await store.claimWithOrder(first, 't', 60_000, slot('message:m2'))).toBe('claimed');
    expect(errors).toContain('CROSSSLOT');
    expect(await store.claim(first, 'u', 60_000)).toBe('in-flight');
    keyCounts.length = 0;
    expect(await store.claimWithOrder(id(), 'u', 60_000, slot('message:m2'))).toBe('object-in-flight');
    expect(keyCounts).not.toContain('2');
  });
});

runDedupeStoreContract(
  'RedisStore on Redis Cluster (ioredis Cluster)',
  () => new RedisStore({ client: ioredisCluster, clientType: 'ioredis', prefix: 'c-io:' }),
  { order: true },
);
runDedupeStoreContract(
  'RedisStore on Redis Cluster (node-redis v5 createCluster)',
  () => new RedisStore({ client: nodeCluster, clientType: 'node-redis-cluster', prefix: 'c-v5:' }),
  { order: true },
);
// sendCommand does not say it is a cluster: the first claimWithOrder meets CROSSSLOT and the store
// falls back to two calls from then on.
runDedupeStoreContract(
  'RedisStore on Redis Cluster (sendCommand over an ioredis Cluster)',
  () =>
    new RedisStore({
      sendCommand: (...args: string[]) => ioredisCluster.call(args[0]!, ...args.slice(1)),
      prefix: 'c-send:',
    }),
  { order: true },
);
runDedupeStoreContract(
  'RedisStore on Redis Cluster (node-redis v4 createCluster)',
  () => new RedisStore({ client: nodeClusterV4, clientType: 'node-redis-cluster', prefix: 'c-v4:' }),
);
runDedupeStoreContract(
  'RedisStore on Redis Cluster (ioredis 6 Cluster)',
  () => new RedisStore({ client: ioredisClusterV6, clientType: 'ioredis', prefix: 'c-io6:' }),
  { order: true },
);
runDedupeStoreContract(
  'RedisStore on Redis Cluster (node-redis v6 createCluster)',
  () => new RedisStore({ client: nodeClusterV6, clientType: 'node-redis-cluster', prefix: 'c-v6:' }),
);
