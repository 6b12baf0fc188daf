import { type Command, InvalidArgumentError, Option } from 'commander';
import { CliError } from '../cli-error.js';
import type { CliIo } from '../io.js';
import { eventId, integer } from '../options.js';
import { print } from '../output.js';
import { cliPgBoss } from '../pg-boss-class.js';
import { terminalText } from '../terminal-text.js';

interface FailedOptions {
  engine?: 'bullmq' | 'pg-boss' | 'rabbitmq';
  amqpUrl?: string;
  redisUrl?: string;
  databaseUrl?: string;
  queue?: string;
  storePrefix?: string;
  schema?: string;
  table?: string;
  limit: number;
  json?: boolean;
}

interface FailedRow {
  eventId: string;
  type: string;
  /** bullmq and pg-boss; rabbitmq's rows carry `messageId` instead. */
  jobId?: string;
  attempts: number;
  failedAt?: Date | undefined;
  error?: string | undefined;
}

interface Engine {
  name: string;
  list(limit: number): Promise<FailedRow[]>;
  replay(id: string): Promise<{ eventId: string; jobId: string; status: string }>;
  close(): Promise<void>;
}

const CONNECT_TIMEOUT_MS = 5000;

/** A parser for one option's URL, whose example is that option's kind of URL. */
function connectionUrl(example: string): (value: string) => string {
  return (value) => {
    if (value.trim() === '')
      throw new InvalidArgumentError(`is empty: pass a connection URL, e.g. ${example}.`);
    try {
      new URL(value);
      return value;
    } catch {
      throw new InvalidArgumentError(`must be a connection URL, e.g. ${example}.`);
    }
  };
}

/** bullmq's failed set, and a RedisStore on the same Redis for the replay's claim. */
async function bullmqEngine(url: string, options: FailedOptions): Promise<Engine> {
  const [{ Queue }, { Redis }, bullmq, { RedisStore }] = await Promise.all([
    import('bullmq'),
    import('ioredis'),
    import('@sms-webhooks/bullmq'),
    import('@sms-webhooks/redis'),
  ]);
  // One connection attempt, bounded: a wrong URL is an error, not a CLI waiting for Redis forever.
  const connection = {
    retryStrategy: () => null,
    connectTimeout: CONNECT_TIMEOUT_MS,
    maxRetriesPerRequest: 1,
  };
  const queue = new Queue(options.queue ?? bullmq.DEFAULT_QUEUE_NAME, { connection: { url, ...connection } });
  const redis = new Redis(url, { ...connection, lazyConnect: true });
  queue.on('error', () => {});
  redis.on('error', () => {});
  const store = new RedisStore({ client: redis, clientType: 'ioredis', prefix: options.storePrefix });
  return {
    name: 'bullmq',
    list: (limit) => bullmq.listFailed(queue, { limit }),
    replay: (id) => bullmq.replayFailed(queue, id, { store }),
    async close() {
      redis.disconnect();
      await queue.close().catch(() => {});
    },
  };
}

/** pg-boss's failed jobs, and a PostgresStore on the same database for the replay's claim. */
async function pgBossEngine(url: string, options: FailedOptions): Promise<Engine> {
  const connection = { connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, max: 2 };
  const [boss, { default: pg }, pgBoss, { PostgresStore }] = await Promise.all([
    cliPgBoss(connection, options.schema),
    import('pg'),
    import('@sms-webhooks/pg-boss'),
    import('@sms-webhooks/postgres'),
  ]);
  const pool = new pg.Pool(connection);
  pool.on('error', () => {});
  const close = async () => {
    await boss.stop({ graceful: false, wait: true }).catch(() => {});
    await pool.end().catch(() => {});
  };
  const schema = options.schema ?? 'pgboss';
  try {
    // pg-boss without migrate says only "pg-boss is not installed" when its schema is missing.
    const { rows } = await pool.query<{ found: string | null }>('SELECT to_regclass($1) AS found', [
      `"${schema.replaceAll('"', '""')}".version`,
    ]);
    if (rows[0]?.found == null) {
      const database = decodeURIComponent(new URL(url).pathname.slice(1)) || 'the default database';
      throw new CliError(
        `pg-boss's schema "${schema}" is not in ${database}: pg-boss never ran on this database. ` +
          'Check --database-url, pass --schema if your app gives pg-boss another one, or start the app once ' +
          '(boss.start() creates the schema).',
        { code: 'schema_missing' },
      );
    }
    await boss.start();
  } catch (error) {
    await close();
    throw error;
  }
  const store = new PostgresStore({ pool, table: options.table });
  const where = { queue: options.queue ?? pgBoss.DEFAULT_QUEUE_NAME, schema: options.schema };
  return {
    name: 'pg-boss',
    list: (limit) => pgBoss.listFailed(boss, { ...where, limit }),
    replay: (id) => pgBoss.replayFailed(boss, id, { ...where, store }),
    close,
  };
}

/**
 * RabbitMQ's failed queue, and for the replay's claim the receiver's store: a RedisStore (--redis-url)
 * or a PostgresStore (--database-url). Listing needs neither.
 */
async function rabbitmqEngine(io: CliIo, url: string, options: FailedOptions): Promise<Engine> {
  const [{ default: amqp }, rabbitmq] = await Promise.all([
    import('amqplib'),
    import('@sms-webhooks/rabbitmq'),
  ]);
  const redisUrl = options.redisUrl ?? io.env.REDIS_URL;
  const databaseUrl = options.databaseUrl ?? io.env.DATABASE_URL;
  const connection = await amqp.connect(url, { timeout: CONNECT_TIMEOUT_MS });
  connection.on('error', () => {});
  const closers: Array<() => Promise<unknown>> = [() => connection.close()];
  async function store() {
    if (options.databaseUrl || (!options.redisUrl && databaseUrl)) {
      const [{ default: pg }, { PostgresStore }] = await Promise.all([
        import('pg'),
        import('@sms-webhooks/postgres'),
      ]);
      const pool = new pg.Pool({
        connectionString: databaseUrl,
        connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
        max: 2,
      });
      pool.on('error', () => {});
      closers.push(() => pool.end());
      return new PostgresStore({ pool, table: options.table });
    }
    if (!redisUrl) {
      throw new CliError(
        "rabbitmq replay needs the receiver's dedupe store: --redis-url (RedisStore) or --database-url (PostgresStore).",
        { code: 'store_missing', exitCode: 2 },
      );
    }
    const [{ Redis }, { RedisStore }] = await Promise.all([import('ioredis'), import('@sms-webhooks/redis')]);
    const redis = new Redis(redisUrl, {
      retryStrategy: () => null,
      connectTimeout: CONNECT_TIMEOUT_MS,
      maxRetriesPerRequest: 1,
    });
    redis.on('error', () => {});
    closers.push(async () => redis.disconnect());
    return new RedisStore({ client: redis, clientType: 'ioredis', prefix: options.storePrefix });
  }
  const queue = options.queue ?? rabbitmq.DEFAULT_QUEUE_NAME;
  return {
    name: 'rabbitmq',
    list: (limit) => rabbitmq.listFailed(connection, { queue, limit }),
    replay: async (id) => {
      const result = await rabbitmq.replayFailed(connection, id, { queue, store: await store() });
      return { ...result, jobId: result.messageId };
    },
    async close() {
      for (const close of closers.reverse()) await close().catch(() => {});
    },
  };
}

function chooseEngine(io: CliIo, options: FailedOptions): Promise<Engine> {
  const engine =
    options.engine ??
    (options.amqpUrl
      ? 'rabbitmq'
      : options.databaseUrl
        ? 'pg-boss'
        : options.redisUrl
          ? 'bullmq'
          : undefined);
  if (engine === 'rabbitmq') {
    const url = options.amqpUrl ?? io.env.AMQP_URL;
    if (!url) throw new CliError('rabbitmq needs --amqp-url (or AMQP_URL): the broker the queue lives in.');
    return rabbitmqEngine(io, url, options);
  }
  if (engine === 'bullmq') {
    const url = options.redisUrl ?? io.env.REDIS_URL;
    if (!url) throw new CliError('bullmq needs --redis-url (or REDIS_URL): the Redis the queue lives in.');
    return bullmqEngine(url, options);
  }
  if (engine === 'pg-boss') {
    const url = options.databaseUrl ?? io.env.DATABASE_URL;
    if (!url)
      throw new CliError('pg-boss needs --database-url (or DATABASE_URL): the database pg-boss uses.');
    return pgBossEngine(url, options);
  }
  throw new CliError(
    'say which queue: --redis-url for bullmq, --database-url for pg-boss, --amqp-url for rabbitmq (or --engine).',
    {
      code: 'engine_missing',
      exitCode: 2,
    },
  );
}

/** A connection error from the drivers names no password: only its code and message are shown. */
function explain(error: unknown, engine: string): never {
  const own = error as { code?: unknown; message?: unknown } | null;
  if (
    own?.code === 'ERR_SMS_BULLMQ_NO_JOB' ||
    own?.code === 'ERR_SMS_PGBOSS_NO_JOB' ||
    own?.code === 'ERR_SMS_RABBITMQ_NO_MESSAGE'
  ) {
    throw new CliError(String(own.message), { code: 'job_not_found' });
  }
  if (own?.code === 'ERR_SMS_BULLMQ_NOT_FAILED' || own?.code === 'ERR_SMS_PGBOSS_NOT_FAILED') {
    throw new CliError(String(own.message), { code: 'job_not_failed' });
  }
  const message = typeof own?.message === 'string' && own.message !== '' ? own.message : String(error);
  throw new CliError(`could not reach the ${engine} queue: ${message}`, { code: 'queue_unavailable' });
}

async function withEngine<T>(
  io: CliIo,
  options: FailedOptions,
  fn: (engine: Engine) => Promise<T>,
): Promise<T> {
  const name = options.engine ?? (options.amqpUrl ? 'rabbitmq' : options.databaseUrl ? 'pg-boss' : 'bullmq');
  let engine: Engine;
  try {
    engine = await chooseEngine(io, options);
  } catch (error) {
    if (error instanceof CliError) throw error;
    explain(error, name);
  }
  try {
    return await fn(engine);
  } catch (error) {
    if (error instanceof CliError) throw error;
    explain(error, engine.name);
  } finally {
    await engine.close();
  }
}

function describeRow(row: FailedRow): string {
  const when = row.failedAt ? row.failedAt.toISOString() : 'unknown time';
  // One row per event: a line end in the error (or the id) is escaped too, so it cannot forge a row.
  const [id, type, error] = [row.eventId, row.type, row.error ?? ''].map(terminalText);
  return `${id}  ${type}  ${row.attempts} attempt(s)  failed ${when}  ${error}`.trimEnd();
}

export function registerFailed(program: Command, io: CliIo): void {
  const failed = program
    .command('failed')
    .description('List and replay events whose queue jobs failed for good (bullmq, pg-boss or rabbitmq).');
  const withConnection = (cmd: Command) =>
    cmd
      .addOption(
        new Option('--engine <engine>', 'the queue engine').choices(['bullmq', 'pg-boss', 'rabbitmq']),
      )
      .option(
        '--redis-url <url>',
        'bullmq: the Redis of the queue (default $REDIS_URL)',
        connectionUrl('redis://127.0.0.1:6379'),
      )
      .option(
        '--database-url <url>',
        'pg-boss: its database (default $DATABASE_URL)',
        connectionUrl('postgres://127.0.0.1:5432/app'),
      )
      .option(
        '--amqp-url <url>',
        "rabbitmq: the broker (default $AMQP_URL); replay also takes the store's --redis-url or --database-url",
        connectionUrl('amqp://127.0.0.1:5672'),
      )
      .option('--queue <name>', 'queue name (default sms-webhooks)')
      .option('--store-prefix <prefix>', "bullmq, rabbitmq: the RedisStore's key prefix, if not the default")
      .option('--schema <name>', 'pg-boss: its schema (default pgboss)')
      .option('--table <name>', "pg-boss, rabbitmq: the PostgresStore's table (default sms_webhook_events)")
      .option('--json', 'print the result as JSON');

  withConnection(
    failed
      .command('list')
      .description('List the failed events, newest first (rabbitmq: oldest first, in queue order).'),
  )
    .option('--limit <n>', 'at most this many (default 100)', integer('--limit', 1, 10_000), 100)
    .action(async (options: FailedOptions) => {
      const rows = await withEngine(io, options, (engine) => engine.list(options.limit));
      print(io, options, rows, () =>
        rows.length === 0
          ? 'No failed events.'
          : [`${rows.length} failed event(s):`, ...rows.map(describeRow)],
      );
    });

  withConnection(
    failed
      .command('replay')
      .description('Run a failed event again, once (its dedupe record still applies).')
      .argument('<event-id>', 'the event id, evt_…', eventId),
  ).action(async (id: string, options: FailedOptions) => {
    const result = await withEngine(io, options, (engine) => engine.replay(id));
    if (result.status === 'in-flight') {
      throw new CliError(
        `${id} is claimed by another delivery or replay right now: nothing replayed; try again once its lease has run out.`,
        { code: 'replay_in_flight' },
      );
    }
    print(io, options, result, () =>
      result.status === 'completed'
        ? `${id} is done already (its dedupe record is completed): nothing replayed.`
        : `Replayed ${id}: job ${result.jobId} is back in the queue and runs once.`,
    );
  });
}
