import type { DedupeStore } from '@sms-webhooks/core';
import type { FailedJobInfo } from '@sms-webhooks/ops';
import { InvalidArgumentError } from 'commander';
import { CliError } from './cli-error.js';
import type { CliIo } from './io.js';
import { cliPgBoss } from './pg-boss-class.js';

/** Where the receiver's dedupe store is, as `audit` and `replay` take it. */
export interface StoreOptions {
  redisUrl?: string;
  databaseUrl?: string;
  storePrefix?: string;
  table?: string;
  queue?: string;
  amqpUrl?: string;
  schema?: string;
}

export interface Connected {
  store: DedupeStore;
  findFailed?: (eventId: string) => Promise<FailedJobInfo | undefined>;
  close(): Promise<void>;
}

const CONNECT_TIMEOUT_MS = 5000;

export function connectionUrl(value: string): string {
  try {
    new URL(value);
    return value;
  } catch {
    throw new InvalidArgumentError('must be a connection URL, e.g. redis://127.0.0.1:6379.');
  }
}

/** The receiver's RedisStore, and the BullMQ queue's failed set with --queue. */
async function redisStore(url: string, options: StoreOptions): Promise<Connected> {
  const [{ Redis }, { RedisStore }] = await Promise.all([import('ioredis'), import('@sms-webhooks/redis')]);
  // One bounded connection attempt: a wrong URL is an error, not a job waiting for Redis forever.
  const connection = {
    retryStrategy: () => null,
    connectTimeout: CONNECT_TIMEOUT_MS,
    maxRetriesPerRequest: 1,
  };
  const redis = new Redis(url, { ...connection, lazyConnect: true });
  redis.on('error', () => {});
  const store = new RedisStore({ client: redis, clientType: 'ioredis', prefix: options.storePrefix });
  if (options.queue === undefined || options.amqpUrl) {
    return { store, close: async () => redis.disconnect() };
  }
  const [{ Queue }, bullmq] = await Promise.all([import('bullmq'), import('@sms-webhooks/bullmq')]);
  const queue = new Queue(options.queue, { connection: { url, ...connection } });
  queue.on('error', () => {});
  return {
    store,
    findFailed: (id) => bullmq.findFailed(queue, id),
    async close() {
      redis.disconnect();
      await queue.close().catch(() => {});
    },
  };
}

/** The receiver's PostgresStore, and pg-boss's failed jobs with --queue. */
async function postgresStore(url: string, options: StoreOptions): Promise<Connected> {
  const [{ default: pg }, { PostgresStore }] = await Promise.all([
    import('pg'),
    import('@sms-webhooks/postgres'),
  ]);
  const connection = { connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, max: 2 };
  const pool = new pg.Pool(connection);
  pool.on('error', () => {});
  const store = new PostgresStore({ pool, table: options.table });
  if (options.queue === undefined || options.amqpUrl) {
    return { store, close: () => pool.end().catch(() => {}) };
  }
  const [boss, pgBoss] = await Promise.all([
    cliPgBoss(connection, options.schema),
    import('@sms-webhooks/pg-boss'),
  ]);
  const close = async () => {
    await boss.stop({ graceful: false, wait: true }).catch(() => {});
    await pool.end().catch(() => {});
  };
  try {
    await boss.start();
  } catch (error) {
    await close();
    throw error;
  }
  const where = { queue: options.queue, schema: options.schema };
  return { store, findFailed: (id) => pgBoss.findFailed(boss, id, where), close };
}

/**
 * RabbitMQ's failed queue (`<queue>.failed`) with --amqp-url: read once for the whole audit, every
 * message given back (see failedFinder in @sms-webhooks/rabbitmq).
 */
async function withRabbitFailed(connected: Connected, url: string, queue: string | undefined) {
  try {
    const [{ default: amqp }, rabbitmq] = await Promise.all([
      import('amqplib'),
      import('@sms-webhooks/rabbitmq'),
    ]);
    const connection = await amqp.connect(url, { timeout: CONNECT_TIMEOUT_MS });
    connection.on('error', () => {});
    const findFailed = rabbitmq.failedFinder(connection, { queue: queue ?? rabbitmq.DEFAULT_QUEUE_NAME });
    return {
      store: connected.store,
      findFailed,
      async close() {
        await connection.close().catch(() => {});
        await connected.close();
      },
    };
  } catch (error) {
    await connected.close();
    const message = error instanceof Error ? error.message : String(error);
    throw new CliError(`could not reach RabbitMQ: ${message}`, { code: 'queue_unavailable' });
  }
}

export async function connect(io: CliIo, options: StoreOptions): Promise<Connected> {
  const connected = await connectStore(io, options);
  const amqpUrl = options.amqpUrl;
  return amqpUrl ? withRabbitFailed(connected, amqpUrl, options.queue) : connected;
}

export function connectStore(io: CliIo, options: StoreOptions): Promise<Connected> {
  const redisUrl = options.redisUrl ?? (options.databaseUrl ? undefined : io.env.REDIS_URL);
  const databaseUrl = options.databaseUrl ?? (redisUrl ? undefined : io.env.DATABASE_URL);
  if (redisUrl && databaseUrl) {
    throw new CliError('give one store: --redis-url (RedisStore) or --database-url (PostgresStore).', {
      exitCode: 2,
    });
  }
  if (redisUrl) return redisStore(redisUrl, options);
  if (databaseUrl) return postgresStore(databaseUrl, options);
  throw new CliError(
    "say where the receiver's dedupe store is: --redis-url (RedisStore) or --database-url (PostgresStore). A MemoryStore lives in the app's process: audit it with auditWebhook() from @sms-webhooks/ops there.",
    { code: 'store_missing', exitCode: 2 },
  );
}
