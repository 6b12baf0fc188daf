import { type DedupeStore, MemoryStore } from '@sms-webhooks/core';
import { PostgresStore } from '@sms-webhooks/postgres';
import { RedisStore } from '@sms-webhooks/redis';
import { createDatabase, type TestDatabase } from '@sms-webhooks/test-helpers/postgres-db';
import { type RedisServer, startRedisServer } from '@sms-webhooks/test-helpers/redis-server';
import { Redis } from 'ioredis';
import pg from 'pg';
import postgres from 'postgres';
import { forkTs, nextMessage, request } from '../lib/child.js';
import { signedRequests } from '../lib/fixtures.js';
import { type RunningServer, startLoadRunner, startServer, stopAll } from '../lib/http-harness.js';
import { inRotation } from '../lib/in-rotation.js';
import { handledProblem, loadProblem } from '../lib/load-checks.js';
import { post } from '../lib/post.js';
import { type BarCheck, bar, barsTable, type SuiteResult } from '../lib/report.js';
import { formatRate, formatRatio, median } from '../lib/stats.js';
import type { Profile } from '../profiles.js';

export interface PostgresProfile {
  /** claim+complete pairs per store per round, and how many run at once. */
  pairs: number;
  concurrency: number;
  amount: number;
  warmupAmount: number;
  rounds: number;
  connections: number;
  bodyBytes: number;
  /** Single requests whose statements are counted before the response comes back. */
  probes: number;
}

/** By the run's profile name: profiles.ts lists the older suites. */
export const POSTGRES_PROFILES: Record<Profile['name'], PostgresProfile> = {
  full: {
    pairs: 5_000,
    concurrency: 32,
    amount: 10_000,
    warmupAmount: 2_000,
    rounds: 7,
    connections: 32,
    bodyBytes: 1024,
    probes: 50,
  },
  quick: {
    pairs: 2_000,
    concurrency: 32,
    amount: 3_000,
    warmupAmount: 1_000,
    rounds: 3,
    connections: 32,
    bodyBytes: 1024,
    probes: 10,
  },
  tiny: {
    pairs: 100,
    concurrency: 8,
    amount: 100,
    warmupAmount: 50,
    rounds: 1,
    connections: 4,
    bodyBytes: 1024,
    probes: 2,
  },
};

const LIMIT = 1024 * 1024;
const SERVER = new URL('./postgres-server.ts', import.meta.url);
const HOUR = 3_600_000;

/** claim + complete of fresh keys, `concurrency` at a time: pairs per second. */
async function pairsPerSecond(store: DedupeStore, pairs: number, concurrency: number, tag: string) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < pairs) {
        const key = `evt_bench_${tag}_${next++}`;
        if ((await store.claim(key, 't', HOUR)) !== 'claimed') throw new Error(`${key} not claimed`);
        if (!(await store.complete(key, 't', HOUR))) throw new Error(`${key} not completed`);
      }
    }),
  );
  return pairs / ((performance.now() - started) / 1000);
}

interface PgServer extends RunningServer {
  statements(): Promise<number>;
}

async function startPostgresServer(
  url: string,
  client: 'pg' | 'postgres.js',
  handlerDelayMs?: number,
): Promise<PgServer> {
  const child = await forkTs(
    SERVER,
    [JSON.stringify({ url, client, maxBodyBytes: LIMIT, handlerDelayMs })],
    ['--expose-gc'],
  );
  const { port } = await nextMessage<{ port: number }>(child, 'ready');
  return {
    // Only the child and the URL are read; the store is a PostgresStore whatever config.store says.
    config: {
      framework: 'express',
      contender: 'ours',
      store: client === 'pg' ? 'memory' : 'memory',
      maxBodyBytes: LIMIT,
    },
    child,
    url: `http://127.0.0.1:${port}/webhooks`,
    statements: async () =>
      (await request<{ statements: number }>(child, { type: 'statements' }, 'statements')).statements,
  };
}

/** One request at a time, handler waiting 300 ms: what the store sent before the answer ran before it. */
async function probeRoundTrips(url: string, client: 'pg' | 'postgres.js', probes: number) {
  const server = await startPostgresServer(url, client, 300);
  try {
    const before: number[] = [];
    const [warm, ...deliveries] = signedRequests(probes + 1, 1024);
    const send = async (d: NonNullable<typeof warm>) => {
      const { host, 'content-length': _, ...headers } = d.headers;
      const status = await post(server.url, d.body, headers);
      if (status !== 200) throw new Error(`probe answered ${status}`);
    };
    await send(warm!); // the first claim also starts the store's first sweep of expired rows
    await new Promise((r) => setTimeout(r, 600));
    const start = await server.statements();
    for (const d of deliveries) {
      const n = await server.statements();
      await send(d);
      before.push((await server.statements()) - n);
    }
    await new Promise((r) => setTimeout(r, 600));
    const total = ((await server.statements()) - start) / probes;
    return { before, total };
  } finally {
    await stopAll([server]);
  }
}

export async function runPostgres(profile: PostgresProfile): Promise<SuiteResult> {
  const started = performance.now();
  let db: TestDatabase | undefined;
  let redisServer: RedisServer | undefined;
  let redis: Redis | undefined;
  let pool: pg.Pool | undefined;
  let sql: postgres.Sql | undefined;
  const servers: RunningServer[] = [];
  const load = await startLoadRunner();
  const notes: string[] = [];
  try {
    db = await createDatabase('bench');
    redisServer = await startRedisServer({ local: true });
    redis = new Redis(redisServer.url);
    pool = new pg.Pool({ connectionString: db.url, max: profile.concurrency });
    sql = postgres(db.url, { max: profile.concurrency, onnotice: () => {} });
    await new PostgresStore({ pool }).migrate();

    // 1. The stores alone, in this process.
    const stores: [string, DedupeStore][] = [
      ['PostgresStore (pg)', new PostgresStore({ pool, sweepIntervalMs: 0 })],
      ['PostgresStore (postgres.js)', new PostgresStore({ sql, sweepIntervalMs: 0 })],
      [
        'RedisStore (ioredis)',
        new RedisStore({ client: redis, clientType: 'ioredis', prefix: `bench-${Date.now()}:` }),
      ],
      ['MemoryStore', new MemoryStore()],
    ];
    const pairRates = new Map<string, number[]>(stores.map(([name]) => [name, []]));
    for (const [name, store] of stores)
      await pairsPerSecond(store, Math.min(200, profile.pairs), profile.concurrency, `warm${name}`);
    await inRotation(profile.rounds, stores, async ([name, store], round, k) => {
      pairRates
        .get(name)!
        .push(await pairsPerSecond(store, profile.pairs, profile.concurrency, `${round}${k}${name}`));
    });
    const pairMedian = (name: string) => median(pairRates.get(name)!);

    // 2. The Express adapter over HTTP, each server in its own process, the load from another.
    const contenders: [string, RunningServer][] = [
      ['PostgresStore (pg)', await startPostgresServer(db.url, 'pg')],
      ['PostgresStore (postgres.js)', await startPostgresServer(db.url, 'postgres.js')],
      [
        'RedisStore (ioredis)',
        await startServer({
          framework: 'express',
          contender: 'ours',
          store: 'redis',
          redisUrl: redisServer.url,
          maxBodyBytes: LIMIT,
        }),
      ],
      [
        'MemoryStore',
        await startServer({ framework: 'express', contender: 'ours', store: 'memory', maxBodyBytes: LIMIT }),
      ],
    ];
    servers.push(...contenders.map(([, s]) => s));
    const rps = new Map<string, number[]>(contenders.map(([name]) => [name, []]));
    const p99 = new Map<string, number[]>(contenders.map(([name]) => [name, []]));
    const sent = new Map<string, number>(contenders.map(([name]) => [name, 0]));
    const fire = async (name: string, server: RunningServer, amount: number, timed: boolean) => {
      const r = await load.run({
        url: server.url,
        amount,
        connections: profile.connections,
        bodyBytes: profile.bodyBytes,
      });
      sent.set(name, sent.get(name)! + r.requests);
      const problem = loadProblem(name, r);
      if (problem) notes.push(`PROBLEM: ${problem}`);
      if (!timed) return;
      rps.get(name)!.push(r.rps);
      p99.get(name)!.push(r.p99);
    };
    for (const [name, server] of contenders) await fire(name, server, profile.warmupAmount, false);
    await inRotation(profile.rounds, contenders, ([name, server]) =>
      fire(name, server, profile.amount, true),
    );
    for (const [name, server] of contenders) {
      const problem = await handledProblem(name, server, sent.get(name)!);
      if (problem) notes.push(`PROBLEM: ${problem}`);
    }
    await stopAll(servers.splice(0));

    // 3. Statements sent before the response, per client.
    const probes = {
      pg: await probeRoundTrips(db.url, 'pg', profile.probes),
      'postgres.js': await probeRoundTrips(db.url, 'postgres.js', profile.probes),
    };

    const httpMedian = (name: string) => median(rps.get(name)!);
    const pgName = 'PostgresStore (pg)';
    const allBefore = [...probes.pg.before, ...probes['postgres.js'].before];
    const bars: BarCheck[] = [
      bar(
        'PostgreSQL round trips before the response (max over probes, both clients)',
        Math.max(...allBefore),
        1,
        'stmt',
        true,
      ),
      bar(
        'probes with exactly one round trip before the response',
        allBefore.filter((n) => n === 1).length / allBefore.length,
        1,
        'of all',
      ),
    ];
    return {
      id: 'postgres',
      title: '6. PostgreSQL',
      tables: [
        {
          title: `claim + complete pairs, in process (${profile.concurrency} at once, ${profile.pairs} per run, median of ${profile.rounds})`,
          columns: ['store', 'pairs/s', 'PostgresStore (pg) / this'],
          rows: stores.map(([name]) => [
            name,
            formatRate(pairMedian(name)),
            formatRatio(pairMedian(pgName) / pairMedian(name)),
          ]),
        },
        {
          title: `Express adapter (${profile.connections} connections, ${profile.amount} requests per run, median of ${profile.rounds})`,
          columns: ['store', 'req/s', 'p99 ms', 'PostgresStore (pg) / this'],
          rows: contenders.map(([name]) => [
            name,
            formatRate(httpMedian(name)),
            median(p99.get(name)!).toFixed(1),
            formatRatio(httpMedian(pgName) / httpMedian(name)),
          ]),
        },
        {
          title: 'Statements the store sent per request (single probes, handler waiting 300 ms)',
          columns: ['client', 'before the response (max)', 'in total (claim + complete)'],
          rows: (['pg', 'postgres.js'] as const).map((c) => [
            c,
            String(Math.max(...probes[c].before)),
            probes[c].total.toFixed(2),
          ]),
        },
        barsTable(bars),
      ],
      bars,
      notes: [
        "The machine's PostgreSQL (a database made for the run and dropped after), a throwaway redis-server; every server in its own process.",
        "Statements are counted in the server process at the client (pg's pool.query, postgres.js's sql.unsafe): one per round trip.",
        'No throughput bar: every claim and complete is a commit, so the rates follow the database host (its fsync time, synchronous_commit); the ratios are reported.',
        ...notes,
      ],
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await stopAll(servers);
    await load.stop();
    await redis?.quit();
    await redisServer?.stop();
    await pool?.end();
    await sql?.end({ timeout: 2 });
    await db?.drop();
  }
}
