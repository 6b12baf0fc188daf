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

runDedupeStoreContract(
  'RedisStore on Redis Cluster (ioredis Cluster)',
  () => new RedisStore({ client: ioredisCluster, clientType: 'ioredis', prefix: 'c-io:' }),
  { order: true },
);
runDedupeStoreContract(
  'RedisStore on Redis Cluster (node-redis v5 createCluster)',
  () => new RedisStore({ client: nodeCluster, clientType: 'node-redis-cluster', prefix: 'c-v5:' }),
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
