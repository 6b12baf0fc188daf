import { type RedisServer, startRedisServer } from '@sms-webhooks/test-helpers/redis-server';
import { Redis } from 'ioredis';
import { CLAIM, COMPLETE, RELEASE } from '../../../packages/redis/src/scripts.js';
import { signedRequests } from '../lib/fixtures.js';
import { type RunningServer, startLoadRunner, startServer, stopAll } from '../lib/http-harness.js';
import { inRotation } from '../lib/in-rotation.js';
import { handledProblem, loadProblem } from '../lib/load-checks.js';
import { post } from '../lib/post.js';
import { type BarCheck, bar, barsTable, type SuiteResult } from '../lib/report.js';
import { formatRate, formatRatio, median } from '../lib/stats.js';

export interface RedisProfile {
  amount: number;
  warmupAmount: number;
  rounds: number;
  connections: number;
  bodyBytes: number;
  /** Single requests whose Redis commands are counted before the response comes back. */
  probes: number;
}

const LIMIT = 1024 * 1024;
/** Our own INFO calls and connection chatter are not the store's work. */
const IGNORED = new Set(['info', 'ping', 'client', 'select', 'hello', 'command', 'config']);

/** `INFO commandstats` as { command: calls }, without the commands in IGNORED. */
async function commandStats(redis: Redis): Promise<Map<string, number>> {
  const text = await redis.info('commandstats');
  const calls = new Map<string, number>();
  for (const match of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    const name = match[1]!.toLowerCase();
    if (!IGNORED.has(name.split('|')[0]!)) calls.set(name, Number(match[2]));
  }
  return calls;
}

function delta(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, calls] of after) {
    const d = calls - (before.get(name) ?? 0);
    if (d !== 0) out.set(name, d);
  }
  return out;
}

/**
 * commandstats also counts the commands a Lua script runs inside Redis (the SET inside the claim
 * script shows as a `set` call). Those are not round trips: only what the client sent is.
 */
const INSIDE_SCRIPTS = new Set(
  [CLAIM, COMPLETE, RELEASE].flatMap((s) =>
    [...s.source.matchAll(/redis\.call\('(\w+)'/g)].map((m) => m[1]!.toLowerCase()),
  ),
);

function split(counts: Map<string, number>): { sent: Map<string, number>; inside: Map<string, number> } {
  const sent = new Map<string, number>();
  const inside = new Map<string, number>();
  for (const [name, n] of counts) (INSIDE_SCRIPTS.has(name) ? inside : sent).set(name, n);
  return { sent, inside };
}

function total(counts: Map<string, number>): number {
  let sum = 0;
  for (const n of split(counts).sent.values()) sum += n;
  return sum;
}

function describe(counts: Map<string, number>, per: number): string {
  return [...counts].map(([name, n]) => `${name} ${(n / per).toFixed(2)}`).join(', ') || 'none';
}

/**
 * One request at a time against a server whose handler waits 300 ms: whatever Redis saw by the time
 * the response arrived ran before the response; complete comes later, after the handler.
 */
async function probeRoundTrips(redisUrl: string, redis: Redis, probes: number) {
  const server = await startServer({
    framework: 'express',
    contender: 'ours',
    store: 'redis',
    redisUrl,
    maxBodyBytes: LIMIT,
    handlerDelayMs: 300,
  });
  try {
    const beforeResponse: number[] = [];
    const seen = new Map<string, number>();
    const start = await commandStats(redis);
    for (const delivery of signedRequests(probes, 1024)) {
      const before = await commandStats(redis);
      const { host, 'content-length': _, ...headers } = delivery.headers;
      const status = await post(server.url, delivery.body, headers);
      if (status !== 200) throw new Error(`probe answered ${status}`);
      const d = delta(before, await commandStats(redis));
      beforeResponse.push(total(d));
      for (const [name, n] of d) seen.set(name, (seen.get(name) ?? 0) + n);
    }
    await new Promise((resolve) => setTimeout(resolve, 600));
    const all = delta(start, await commandStats(redis));
    return { beforeResponse, seenBefore: seen, all };
  } finally {
    await stopAll([server]);
  }
}

export async function runRedis(profile: RedisProfile): Promise<SuiteResult> {
  const started = performance.now();
  let redisServer: RedisServer | undefined;
  let redis: Redis | undefined;
  const servers: RunningServer[] = [];
  const load = await startLoadRunner();
  const notes: string[] = [];
  try {
    redisServer = await startRedisServer({ local: true });
    redis = new Redis(redisServer.url);
    for (const store of ['redis', 'memory'] as const) {
      servers.push(
        await startServer({
          framework: 'express',
          contender: 'ours',
          store,
          redisUrl: redisServer.url,
          maxBodyBytes: LIMIT,
        }),
      );
    }
    const rps = new Map<string, number[]>([
      ['redis', []],
      ['memory', []],
    ]);
    const p99 = new Map<string, number[]>([
      ['redis', []],
      ['memory', []],
    ]);
    const sent = new Map<string, number>([
      ['redis', 0],
      ['memory', 0],
    ]);
    let loadCommands = new Map<string, number>();
    const fire = async (server: RunningServer, amount: number, timed: boolean) => {
      const before = await commandStats(redis!);
      const r = await load.run({
        url: server.url,
        amount,
        connections: profile.connections,
        bodyBytes: profile.bodyBytes,
      });
      const store = server.config.store;
      sent.set(store, sent.get(store)! + r.requests);
      const problem = loadProblem(store, r);
      if (problem) notes.push(`PROBLEM: ${problem}`);
      if (!timed) return;
      rps.get(store)!.push(r.rps);
      p99.get(store)!.push(r.p99);
      if (store === 'redis') {
        // Background completes of this run may still be arriving: give them a moment before counting.
        await new Promise((resolve) => setTimeout(resolve, 200));
        const d = delta(before, await commandStats(redis!));
        for (const [name, n] of d) loadCommands.set(name, (loadCommands.get(name) ?? 0) + n / r.requests);
      }
    };
    for (const server of servers) await fire(server, profile.warmupAmount, false);
    loadCommands = new Map();
    await inRotation(profile.rounds, servers, (server) => fire(server, profile.amount, true));
    for (const server of servers) {
      const store = server.config.store;
      const problem = await handledProblem(store, server, sent.get(store)!);
      if (problem) notes.push(`PROBLEM: ${problem}`);
    }
    await stopAll(servers.splice(0));
    const probe = await probeRoundTrips(redisServer.url, redis, profile.probes);

    const redisRps = median(rps.get('redis')!);
    const memoryRps = median(rps.get('memory')!);
    const exactlyOne = probe.beforeResponse.filter((n) => n === 1).length;
    const bars: BarCheck[] = [
      bar('Express: RedisStore vs MemoryStore', redisRps / memoryRps, 0.7),
      bar(
        'Redis round trips before the response (max over probes)',
        Math.max(...probe.beforeResponse),
        1,
        'cmd',
        true,
      ),
      bar('probes with exactly one round trip before the response', exactlyOne / profile.probes, 1, 'of all'),
    ];
    const perRound = (m: Map<string, number>) => new Map([...m].map(([k, v]) => [k, v / profile.rounds]));
    return {
      id: 'redis',
      title: '3. Redis',
      tables: [
        {
          title: `Express adapter, RedisStore vs MemoryStore (${profile.connections} connections, ${profile.amount} requests per run, median of ${profile.rounds})`,
          columns: ['store', 'req/s', 'p99 ms', 'ours / this'],
          rows: [
            ['RedisStore (ioredis)', formatRate(redisRps), median(p99.get('redis')!).toFixed(1), '1.00x'],
            [
              'MemoryStore',
              formatRate(memoryRps),
              median(p99.get('memory')!).toFixed(1),
              formatRatio(redisRps / memoryRps),
            ],
          ],
        },
        {
          title: 'Redis INFO commandstats, per request (sent by the client | run inside the Lua scripts)',
          columns: ['when', 'round trips (client commands)', 'inside scripts'],
          rows: [
            [`before the response (${profile.probes} single probes)`, probe.seenBefore, profile.probes],
            ['in total, probes (claim + complete)', probe.all, profile.probes],
            ['in total, under load', perRound(loadCommands), 1],
          ].map(([label, counts, per]) => {
            const { sent, inside } = split(counts as Map<string, number>);
            return [label as string, describe(sent, per as number), describe(inside, per as number)];
          }),
        },
        barsTable(bars),
      ],
      bars,
      notes: [
        'A throwaway redis-server on a free port; the store talks to it through ioredis. Both servers in their own processes.',
        "Probe: a handler that waits 300 ms, one request at a time; INFO commandstats is read before each request and as soon as its response arrives ('info' itself not counted).",
        ...notes,
      ],
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await stopAll(servers);
    await load.stop();
    await redis?.quit();
    await redisServer?.stop();
  }
}
