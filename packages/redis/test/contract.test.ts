import { runDedupeStoreContract } from '@sms-webhooks/core/testing';
import { RedisStore } from '@sms-webhooks/redis';
import { type RedisServer, startRedisServer } from '@sms-webhooks/test-helpers/redis-server';
import { CLIENT_KINDS, type Connected, connect } from './clients.js';
import { runPrefix } from './harness.js';

let server: RedisServer;
const open: Connected[] = [];

beforeAll(async () => {
  server = await startRedisServer();
});

afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
  await server?.stop();
});

async function connected(kind: (typeof CLIENT_KINDS)[number]): Promise<Connected> {
  const existing = open.find((c) => c.kind === kind);
  if (existing) return existing;
  const c = await connect(kind, server.url);
  open.push(c);
  return c;
}

// One prefix per client and per run: the contract reuses a fixed long key (kept an hour), and stores
// sharing a prefix share records, so a fixed prefix fails the next run against the same REDIS_URL.
for (const kind of CLIENT_KINDS) {
  const prefix = runPrefix(`contract-${kind.replace(/\W+/g, '-')}`);
  runDedupeStoreContract(`RedisStore (${kind})`, async () => (await connected(kind)).store({ prefix }), {
    order: true,
  });
}

// The raw sendCommand form, as the README shows it for ioredis.
runDedupeStoreContract(
  'RedisStore (sendCommand)',
  async () => {
    const c = await connected('ioredis');
    return new RedisStore({
      sendCommand: (...args) => c.command(...args),
      prefix: runPrefix('contract-raw'),
    });
  },
  { order: true },
);
