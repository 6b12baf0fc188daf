import { randomBytes } from 'node:crypto';
import { type DedupeStore, MemoryStore, type Receiver } from '@sms-webhooks/core';
import { PostgresStore } from '@sms-webhooks/postgres';
import { RedisStore } from '@sms-webhooks/redis';
import { createDatabase, pgPool, type TestDatabase } from '@sms-webhooks/test-helpers/postgres-db';
import { type RedisServer, startRedisServer } from '@sms-webhooks/test-helpers/redis-server';
import { Redis } from 'ioredis';
import type pg from 'pg';
import { listen, nodeHttpServer, type Target } from './targets.js';

/** A receiving app on node:http whose receiver can be swapped (a redeploy), counting its answers. */
export interface SwappableApp extends Target {
  use(receiver: Receiver): void;
  /** Every status it answered, in order. */
  answers: number[];
}

export async function swappableApp(first: Receiver): Promise<SwappableApp> {
  let current = first;
  const answers: number[] = [];
  const proxy = new Proxy(first, {
    get: (_t, prop) => {
      if (prop !== 'handle') return Reflect.get(current, prop);
      return async (delivery: Parameters<Receiver['handle']>[0]) => {
        const out = await current.handle(delivery);
        answers.push(out.status);
        return out;
      };
    },
  });
  const target = await listen(nodeHttpServer(proxy));
  return {
    ...target,
    answers,
    use(receiver) {
      current = receiver;
    },
  };
}

export type StoreKind = 'MemoryStore' | 'RedisStore' | 'PostgresStore';
export const STORE_KINDS: StoreKind[] = ['MemoryStore', 'RedisStore', 'PostgresStore'];

/** Each kind of store on a server of its own, started once per file; every `make` gives a fresh namespace. */
export function storeFactory() {
  let redis: RedisServer | undefined;
  let db: TestDatabase | undefined;
  let pool: pg.Pool | undefined;
  const clients: Redis[] = [];
  return {
    async make(kind: StoreKind): Promise<DedupeStore> {
      const unique = randomBytes(4).toString('hex');
      if (kind === 'MemoryStore') return new MemoryStore();
      if (kind === 'RedisStore') {
        redis ??= await startRedisServer();
        const client = new Redis(redis.url);
        clients.push(client);
        return new RedisStore({ client, clientType: 'ioredis', prefix: `ops-${unique}:` });
      }
      db ??= await createDatabase('ops_audit');
      pool ??= pgPool(db.url);
      const store = new PostgresStore({ pool, table: `audit_${unique}` });
      await store.migrate();
      return store;
    },
    async close() {
      await Promise.all(clients.map((c) => c.quit()));
      await pool?.end();
      await db?.drop();
      await redis?.stop();
    },
  };
}
