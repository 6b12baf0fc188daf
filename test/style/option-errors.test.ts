/**
 * Every option mistake, in every package, throws at start-up with a stable code and a message that
 * starts with the package that found it. The packages that made their option errors before this rule
 * (redis, postgres, pg-boss, lambda) keep their documented codes: those are public, and do not move.
 * Each row calls a public constructor or factory with one wrong option, as an application would.
 * The CLI is not here: its mistakes are command-line arguments, reported as CliError codes on stderr.
 */
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as bullmq from '@sms-webhooks/bullmq';
import { createClient } from '@sms-webhooks/client';
import { createReceiver } from '@sms-webhooks/core';
import { createEmulator } from '@sms-webhooks/emulator';
import { webhookMiddleware as expressMiddleware } from '@sms-webhooks/express';
import { webhookPlugin } from '@sms-webhooks/fastify';
import { webhookMiddleware as koaMiddleware } from '@sms-webhooks/koa';
import { lambdaHandler } from '@sms-webhooks/lambda';
import { OnSmsWebhook, SmsWebhooksModule } from '@sms-webhooks/nestjs';
import * as ops from '@sms-webhooks/ops';
import { otelInstrumentation } from '@sms-webhooks/otel';
import * as pgBoss from '@sms-webhooks/pg-boss';
import { PostgresStore } from '@sms-webhooks/postgres';
import * as rabbitmq from '@sms-webhooks/rabbitmq';
import { RedisStore } from '@sms-webhooks/redis';
import { webhookHandler } from '@sms-webhooks/web';
import amqp, { type ChannelModel } from 'amqplib';
import Fastify from 'fastify';
import pg from 'pg';
import PgBoss from 'pg-boss';

// Nest's own packages are dev dependencies of packages/nestjs only: loaded from there, typed as used here.
const fromNest = createRequire(new URL('../../packages/nestjs/package.json', import.meta.url));
type ClassDecorator = (target: new () => object) => void;
const { Injectable, Module, Scope } = fromNest('@nestjs/common') as {
  Injectable(options: { scope: number }): ClassDecorator;
  Module(metadata: { imports?: unknown[]; providers?: unknown[] }): ClassDecorator;
  Scope: { REQUEST: number };
};
const { Test } = fromNest('@nestjs/testing') as {
  Test: {
    createTestingModule(metadata: { imports?: unknown[]; providers?: unknown[] }): {
      compile(): Promise<{
        createNestApplication(
          adapter: object,
          options: { logger: false },
        ): { init(): Promise<unknown>; close(): Promise<void> };
      }>;
    };
  };
};
const { ExpressAdapter } = fromNest('@nestjs/platform-express') as {
  ExpressAdapter: new () => { getType(): string };
};

// biome-ignore lint/suspicious/noExplicitAny: each row passes what the types forbid, as JavaScript can
const wrong = (value: unknown): any => value;

const SECRET = 'whsec_optionerrors0123456789abcdef0123';
const receiver = createReceiver({ secret: SECRET });
// Real clients that are never connected: every check below runs before the first round trip.
const pool = new pg.Pool({ connectionString: 'postgres://127.0.0.1:1/never', max: 1 });
const store = new PostgresStore({ pool, sweepIntervalMs: 0 });
const boss = new PgBoss({ connectionString: 'postgres://127.0.0.1:1/never' });
const connection = { host: '127.0.0.1', port: 1 };
// A stand-in for a BullMQ Queue (a real one connects at once); the checks never call it.
const queue = { add: async () => wrong({}), getJob: async () => undefined };
const redis = new RedisStore({ sendCommand: async () => null });

// A real connection to the test broker (the checks run before it is used): amqplib's own shape.
let amqpConnection: ChannelModel;
beforeAll(async () => {
  amqpConnection = await amqp.connect(process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672');
  amqpConnection.on('error', () => {});
});

afterAll(async () => {
  await Promise.all([pool.end(), amqpConnection?.close()]);
});

/**
 * One wrong call; it throws, or returns a promise that rejects. A check core makes for the package
 * (the receiver given to lambda, the handlers given to pg-boss) throws core's TypeError with
 * ERR_SMS_OPTIONS and the package's prefix: `fromCore` says so where the package has its own code.
 */
type Mistake = [what: string, call: () => unknown, fromCore?: 'fromCore'];

interface PackageErrors {
  prefix: string;
  code: string;
  /** The error's class: TypeError for core's optionError, or the package's own error class. */
  name: 'TypeError' | 'RedisStoreError' | 'PostgresStoreError' | 'PgBossHandOffError';
  mistakes: Mistake[];
}

/** A Nest app with `metadata`, compiled and started on Express, closed whatever happens. */
async function startNest(
  metadata: Parameters<typeof Test.createTestingModule>[0],
  adapter = new ExpressAdapter(),
) {
  const moduleRef = await Test.createTestingModule(metadata).compile();
  const app = moduleRef.createNestApplication(adapter, { logger: false });
  try {
    await app.init();
  } finally {
    await app.close();
  }
}

class RequestScoped {
  onSent(): void {}
}
Injectable({ scope: Scope.REQUEST })(RequestScoped);
OnSmsWebhook('message.sent')(
  RequestScoped.prototype,
  'onSent',
  Object.getOwnPropertyDescriptor(RequestScoped.prototype, 'onSent')!,
);

class OtherPlatform extends ExpressAdapter {
  override getType(): string {
    return 'hyper-express';
  }
}

const nestModule = (options: unknown) => {
  class AppModule {}
  // biome-ignore lint/suspicious/noExplicitAny: the mistakes a JavaScript caller (or a cast) can make
  Module({ imports: [SmsWebhooksModule.forRoot(options as any)] })(AppModule);
  return AppModule;
};

/** A store of one's own that hands pg-boss a transaction it cannot send through. */
const homeMadeStore = {
  table: 'sms_webhook_events',
  keyFor: (id: string) => id,
  transaction: async (_ctx: unknown, fn: (tx: unknown) => unknown) => fn({ not: 'a client' }),
};

const PACKAGES: Record<string, PackageErrors> = {
  bullmq: {
    prefix: '@sms-webhooks/bullmq',
    code: 'ERR_SMS_OPTIONS',
    name: 'TypeError',
    mistakes: [
      ['enqueueTo without a queue', () => bullmq.enqueueTo(wrong({}))],
      ['enqueueTo attempts 0', () => bullmq.enqueueTo(queue, { attempts: 0 })],
      ['enqueueTo timeoutMs as a string', () => bullmq.enqueueTo(queue, { timeoutMs: wrong('5000') })],
      ['createWorker without connection', () => bullmq.createWorker(receiver, wrong({}))],
      ['createWorker leaseMs -1', () => bullmq.createWorker(receiver, { connection, leaseMs: -1 })],
      ['createWorker given a number for handlers', () => bullmq.createWorker(wrong(1), { connection })],
      ['replayFailed without store', () => bullmq.replayFailed(queue, 'evt_1', wrong({}))],
    ],
  },
  client: {
    prefix: '@sms-webhooks/client',
    code: 'ERR_SMS_OPTIONS',
    name: 'TypeError',
    mistakes: [
      ['no apiKey', () => createClient(wrong({ baseUrl: 'http://127.0.0.1:1' }))],
      ['apiKey with a newline', () => createClient({ apiKey: 'sk_test_x\n', baseUrl: 'http://127.0.0.1:1' })],
      ['baseUrl not absolute', () => createClient({ apiKey: 'sk_test_x', baseUrl: '/api' })],
      [
        'fetch not a function',
        () => createClient({ apiKey: 'sk_test_x', baseUrl: 'http://x', fetch: wrong(1) }),
      ],
      [
        'refreshMarginMs -1',
        () => createClient({ apiKey: 'sk_test_x', baseUrl: 'http://x', refreshMarginMs: -1 }),
      ],
      ['maxRetries 1.5', () => createClient({ apiKey: 'sk_test_x', baseUrl: 'http://x', maxRetries: 1.5 })],
    ],
  },
  emulator: {
    prefix: '@sms-webhooks/emulator',
    code: 'ERR_SMS_OPTIONS',
    name: 'TypeError',
    mistakes: [
      ['timeScale 0', () => createEmulator({ timeScale: 0 })],
      ['rateLimit without windowMs', () => createEmulator({ rateLimit: wrong({ limit: 5 }) })],
      ['webhookSecret not whsec_', () => createEmulator({ webhookSecret: 'secret' })],
      ['webhookSecretApiKeys empty', () => createEmulator({ webhookSecretApiKeys: [] })],
      ['now not a function', () => createEmulator({ now: wrong(5) })],
      ['clock without setTimer', () => createEmulator({ clock: wrong({ now: () => 0 }) })],
      [
        'clock and now',
        () => createEmulator({ clock: { now: () => 0, setTimer: () => () => {} }, now: () => 0 }),
      ],
    ],
  },
  express: {
    prefix: '@sms-webhooks/express',
    code: 'ERR_SMS_OPTIONS',
    name: 'TypeError',
    mistakes: [['no receiver', () => expressMiddleware(wrong(undefined))]],
  },
  fastify: {
    prefix: '@sms-webhooks/fastify',
    code: 'ERR_SMS_OPTIONS',
    name: 'TypeError',
    mistakes: [
      ['no receiver', () => Fastify().register(webhookPlugin, wrong({ path: '/webhooks' }))],
      ['path without /', () => Fastify().register(webhookPlugin, { receiver, path: 'webhooks' })],
      [
        'drainTimeoutMs 0',
        () => Fastify().register(webhookPlugin, { receiver, path: '/webhooks', drainTimeoutMs: 0 }),
      ],
    ],
  },
  koa: {
    prefix: '@sms-webhooks/koa',
    code: 'ERR_SMS_OPTIONS',
    name: 'TypeError',
    mistakes: [
      ['no receiver', () => koaMiddleware(wrong(null))],
      ['path without /', () => koaMiddleware(receiver, { path: 'webhooks' })],
    ],
  },
  lambda: {
    prefix: '@sms-webhooks/lambda',
    code: 'ERR_SMS_LAMBDA_OPTIONS',
    name: 'TypeError',
    mistakes: [
      ['no receiver', () => lambdaHandler(wrong({})), 'fromCore'],
      [
        'answerBeforeHandlers not acknowledged',
        () => lambdaHandler(receiver, { answerBeforeHandlers: wrong(true) }),
      ],
      ['invoked without an HTTP event', () => lambdaHandler(receiver)(wrong(null))],
    ],
  },
  nestjs: {
    prefix: '@sms-webhooks/nestjs',
    code: 'ERR_SMS_OPTIONS',
    name: 'TypeError',
    mistakes: [
      ['forRoot without path', () => startNest({ imports: [nestModule({ secret: SECRET })] })],
      [
        'forRoot drainTimeoutMs as a string',
        () => startNest({ imports: [nestModule({ secret: SECRET, path: '/w', drainTimeoutMs: '5' })] }),
      ],
      ['@OnSmsWebhook([])', () => OnSmsWebhook(wrong([]))],
      ['@OnSmsWebhook of an unknown type', () => OnSmsWebhook(wrong('message.delivred'))],
      ['@OnSmsWebhook on a property', () => OnSmsWebhook('message.sent')({}, 'x', { value: wrong(1) })],
      [
        'a handler on a request-scoped provider',
        () =>
          startNest({ imports: [nestModule({ secret: SECRET, path: '/w' })], providers: [RequestScoped] }),
      ],
      [
        'an HTTP platform without raw bodies',
        () => startNest({ imports: [nestModule({ secret: SECRET, path: '/w' })] }, new OtherPlatform()),
      ],
    ],
  },
  otel: {
    prefix: '@sms-webhooks/otel',
    code: 'ERR_SMS_OPTIONS',
    name: 'TypeError',
    mistakes: [
      ['options not an object', () => otelInstrumentation(wrong('full'))],
      ['tracerProvider without getTracer', () => otelInstrumentation({ tracerProvider: wrong({}) })],
      ['meterProvider without getMeter', () => otelInstrumentation({ meterProvider: wrong({}) })],
      ['detail unknown', () => otelInstrumentation({ detail: wrong('all') })],
      ['httpDuplicates a string', () => otelInstrumentation({ httpDuplicates: wrong('yes') })],
    ],
  },
  'pg-boss': {
    prefix: '@sms-webhooks/pg-boss',
    code: 'ERR_SMS_PGBOSS_OPTIONS',
    name: 'PgBossHandOffError',
    mistakes: [
      ['enqueueTo without a boss', () => pgBoss.enqueueTo(wrong({}), { store })],
      ['enqueueTo without store', () => pgBoss.enqueueTo(boss, wrong({}))],
      ['enqueueTo attempts 0', () => pgBoss.enqueueTo(boss, { store, attempts: 0 })],
      ['enqueueTo retryDelaySeconds -1', () => pgBoss.enqueueTo(boss, { store, retryDelaySeconds: -1 })],
      [
        'enqueueTo a store with an unchecked table',
        () => pgBoss.enqueueTo(boss, { store: wrong({ ...homeMadeStore, table: 'x;' }) }),
      ],
      [
        "enqueueTo a store whose transaction is no client's",
        () => pgBoss.enqueueTo(boss, { store: wrong(homeMadeStore) })(wrong({ event: { id: 'evt_1' } })),
      ],
      ['createWorker without a boss', () => pgBoss.createWorker(receiver, wrong({}))],
      ['createWorker given a number for handlers', () => pgBoss.createWorker(wrong(1), boss), 'fromCore'],
      ['createWorker concurrency 0', () => pgBoss.createWorker(receiver, boss, { concurrency: 0 })],
      ['listFailed schema with a quote', () => pgBoss.listFailed(boss, { schema: 'x"' })],
      ['replayFailed without store', () => pgBoss.replayFailed(boss, 'evt_1', wrong({}))],
    ],
  },
  postgres: {
    prefix: '@sms-webhooks/postgres',
    code: 'ERR_SMS_POSTGRES_OPTIONS',
    name: 'PostgresStoreError',
    mistakes: [
      ['no client', () => new PostgresStore(wrong({}))],
      ['table with a capital', () => new PostgresStore({ pool, table: 'Events' })],
      ['retainMs as a string', () => new PostgresStore({ pool, retainMs: wrong('86400000') })],
      ['sweepIntervalMs -1', () => new PostgresStore({ pool, sweepIntervalMs: -1 })],
      ['claim with leaseMs 0', () => store.claim('evt_1', 'token', 0)],
      ['completeIn given the pool', () => store.completeIn({}, pool)],
    ],
  },
  ops: {
    prefix: '@sms-webhooks/ops',
    code: 'ERR_SMS_OPS_OPTIONS',
    name: 'TypeError',
    mistakes: [
      ['auditWebhook without options', () => ops.auditWebhook(wrong(undefined))],
      ['auditWebhook without a client', () => ops.auditWebhook(wrong({ webhookId: 'wh_1', store: {} }))],
      [
        'auditWebhook with a bad webhook id',
        () => ops.auditWebhook(wrong({ client: { listDeliveries: async () => ({}) }, webhookId: 'nope' })),
      ],
      ['syncWebhook without a client', () => ops.syncWebhook(wrong({}), wrong({}))],
    ],
  },
  rabbitmq: {
    prefix: '@sms-webhooks/rabbitmq',
    code: 'ERR_SMS_OPTIONS',
    name: 'TypeError',
    mistakes: [
      ['enqueueTo without a connection', () => rabbitmq.enqueueTo(wrong({}))],
      ['enqueueTo a queue named amq.*', () => rabbitmq.enqueueTo(amqpConnection, { queue: 'amq.webhooks' })],
      ['enqueueTo an empty queue name', () => rabbitmq.enqueueTo(amqpConnection, { queue: '' })],
      ['enqueueTo queueType lazy', () => rabbitmq.enqueueTo(amqpConnection, { queueType: wrong('lazy') })],
      ['enqueueTo deliveryLimit 0', () => rabbitmq.enqueueTo(amqpConnection, { deliveryLimit: 0 })],
      [
        'enqueueTo timeoutMs as a string',
        () => rabbitmq.enqueueTo(amqpConnection, { timeoutMs: wrong('5000') }),
      ],
      ['enqueueTo a store without claim', () => rabbitmq.enqueueTo(amqpConnection, { store: wrong({}) })],
      ['createWorker without connection', () => rabbitmq.createWorker(receiver, wrong({}))],
      [
        'createWorker given a number for handlers',
        () => rabbitmq.createWorker(wrong(1), { connection: amqpConnection }),
      ],
      [
        'createWorker prefetch 0',
        () => rabbitmq.createWorker(receiver, { connection: amqpConnection, prefetch: 0 }),
      ],
      [
        'createWorker backoffMs []',
        () => rabbitmq.createWorker(receiver, { connection: amqpConnection, backoffMs: [] }),
      ],
      [
        'createWorker backoffMs a string',
        () => rabbitmq.createWorker(receiver, { connection: amqpConnection, backoffMs: wrong('2s') }),
      ],
      ['listFailed without a connection', () => rabbitmq.listFailed(wrong(undefined))],
      ['listFailed limit 0', () => rabbitmq.listFailed(amqpConnection, { limit: 0 })],
      ['replayFailed without store', () => rabbitmq.replayFailed(amqpConnection, 'evt_1', wrong({}))],
    ],
  },
  redis: {
    prefix: '@sms-webhooks/redis',
    code: 'ERR_SMS_REDIS_OPTIONS',
    name: 'RedisStoreError',
    mistakes: [
      ['no options', () => new RedisStore(wrong(undefined))],
      ['client without clientType', () => new RedisStore(wrong({ client: {} }))],
      ['sendCommand not a function', () => new RedisStore({ sendCommand: wrong('EVAL') })],
      ['prefix a number', () => new RedisStore({ sendCommand: async () => null, prefix: wrong(1) })],
      ['commandTimeoutMs 0', () => new RedisStore({ sendCommand: async () => null, commandTimeoutMs: 0 })],
      ['claim with leaseMs 0', () => redis.claim('evt_1', 'token', 0)],
    ],
  },
  web: {
    prefix: '@sms-webhooks/web',
    code: 'ERR_SMS_OPTIONS',
    name: 'TypeError',
    mistakes: [
      ['no receiver', () => webhookHandler(wrong({}))],
      ['waitUntil not a function', () => webhookHandler(receiver, { waitUntil: wrong('later') })],
    ],
  },
};

/** What the call threw or rejected with; fails when it did neither. */
async function errorOf(call: () => unknown): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error('expected an option error, but the call went through');
}

/** What is wrong with `error` as this package's option error, or nothing. */
function problemsOf(error: unknown, expected: Omit<PackageErrors, 'mistakes'>): string[] {
  const e = error as { name?: unknown; code?: unknown; message?: unknown };
  const problems: string[] = [];
  const isClass = expected.name === 'TypeError' ? error instanceof TypeError : e?.name === expected.name;
  if (!isClass) problems.push(`is ${String(e?.name)}, not ${expected.name}`);
  if (e?.code !== expected.code) problems.push(`has code ${String(e?.code)}, not ${expected.code}`);
  if (typeof e?.message !== 'string' || !e.message.startsWith(`${expected.prefix}: `)) {
    problems.push(`message ${JSON.stringify(e?.message)} does not start with '${expected.prefix}: '`);
  }
  return problems;
}

const CORE_CHECK = { code: 'ERR_SMS_OPTIONS', name: 'TypeError' } as const;

const rows = Object.entries(PACKAGES).flatMap(([pkg, expected]) =>
  expected.mistakes.map(([what, call, fromCore]) => ({
    label: `${pkg}: ${what}`,
    expected: fromCore ? { ...expected, ...CORE_CHECK } : expected,
    call,
  })),
);

describe('option errors', () => {
  it.each(rows)('$label', async ({ expected, call }) => {
    expect(problemsOf(await errorOf(call), expected)).toEqual([]);
  });

  it('covers every package but core (its own tests check it) and the CLI', () => {
    const all = readdirSync(new URL('../../packages/', import.meta.url)).filter(
      (p) => !['core', 'cli'].includes(p),
    );
    expect(Object.keys(PACKAGES).sort()).toEqual(all.sort());
  });

  it('can fail: a plain TypeError, a foreign prefix and a call that goes through are caught', async () => {
    const expected = PACKAGES.web!;
    expect(problemsOf(new TypeError('@sms-webhooks/web: x'), expected)).toEqual([
      'has code undefined, not ERR_SMS_OPTIONS',
    ]);
    expect(
      problemsOf(Object.assign(new Error('sms-webhooks: x'), { code: 'ERR_SMS_OPTIONS' }), expected),
    ).toEqual([
      'is Error, not TypeError',
      `message "sms-webhooks: x" does not start with '@sms-webhooks/web: '`,
    ]);
    await expect(errorOf(() => webhookHandler(receiver))).rejects.toThrow(/went through/);
  });
});
