import { request } from '../lib/child.js';
import {
  type LoadRunner,
  type RunningServer,
  startLoadRunner,
  startServer,
  stopAll,
} from '../lib/http-harness.js';
import { inRotation } from '../lib/in-rotation.js';
import { handledProblem, loadProblem } from '../lib/load-checks.js';
import { type BarCheck, bar, barsTable, type SuiteResult, type Table } from '../lib/report.js';
import { formatRate, formatRatio, median } from '../lib/stats.js';
import type { ContenderName, Framework } from '../servers/contenders.js';

export interface HttpProfile {
  frameworks: Framework[];
  /** Requests per timed run. */
  amount: number;
  warmupAmount: number;
  rounds: number;
  connections: number;
  bodyBytes: number;
}

const LABEL: Record<ContenderName, string> = {
  ours: 'ours: adapter + MemoryStore',
  limit: 'limit: raw-body route + HMAC + JSON.parse',
  empty: 'empty: raw-body route, 200',
  byhand: 'by hand: our job on the raw-body route',
  hand: 'hand-written route',
  stripe: 'Stripe constructEvent recipe',
  rawbody: "ours, body read by raw-body's callback form",
};
export const HTTP_CONTENDERS: ContenderName[] = ['ours', 'limit', 'empty', 'byhand', 'hand', 'stripe'];
const LIMIT = 1024 * 1024;

interface Samples {
  rps: number[];
  p99: number[];
  /** Server CPU µs per request, one per timed run (process.cpuUsage in the server, around the run). */
  cpu: number[];
  sent: number;
}

const serverCpu = async (server: RunningServer) =>
  (await request<{ micros: number }>(server.child, { type: 'cpu' }, 'cpu')).micros;

async function runFramework(
  framework: Framework,
  load: LoadRunner,
  profile: HttpProfile,
  problems: string[],
): Promise<Map<ContenderName, Samples>> {
  const servers: RunningServer[] = [];
  try {
    for (const contender of HTTP_CONTENDERS) {
      servers.push(await startServer({ framework, contender, store: 'memory', maxBodyBytes: LIMIT }));
    }
    const samples = new Map<ContenderName, Samples>(
      HTTP_CONTENDERS.map((c) => [c, { rps: [], p99: [], cpu: [], sent: 0 }]),
    );
    const fire = async (server: RunningServer, amount: number) => {
      const result = await load.run({
        url: server.url,
        amount,
        connections: profile.connections,
        bodyBytes: profile.bodyBytes,
      });
      const s = samples.get(server.config.contender)!;
      s.sent += result.requests;
      const problem = loadProblem(`${framework}/${server.config.contender}`, result);
      if (problem) problems.push(problem);
      return result;
    };
    for (const server of servers) await fire(server, profile.warmupAmount);
    await inRotation(profile.rounds, servers, async (server) => {
      const cpuBefore = await serverCpu(server);
      const result = await fire(server, profile.amount);
      const cpuAfter = await serverCpu(server);
      const s = samples.get(server.config.contender)!;
      s.rps.push(result.rps);
      s.p99.push(result.p99);
      s.cpu.push((cpuAfter - cpuBefore) / result.requests);
    });
    for (const server of servers) {
      const { contender } = server.config;
      const problem = await handledProblem(`${framework}/${contender}`, server, samples.get(contender)!.sent);
      if (problem) problems.push(problem);
    }
    return samples;
  } finally {
    await stopAll(servers);
  }
}

export async function runHttp(profile: HttpProfile): Promise<SuiteResult> {
  const started = performance.now();
  const tables: Table[] = [];
  const bars: BarCheck[] = [];
  const problems: string[] = [];
  const load = await startLoadRunner();
  try {
    for (const framework of profile.frameworks) {
      const samples = await runFramework(framework, load, profile, problems);
      const rps = (c: ContenderName) => median(samples.get(c)!.rps);
      // Each round runs every contender back to back: the ratio within a round cancels the drift of a
      // shared machine between rounds, and the median of those ratios is the figure the bars read.
      const ratio = (c: ContenderName) => {
        const theirs = samples.get(c)!.rps;
        return median(samples.get('ours')!.rps.map((r, i) => r / theirs[i]!));
      };
      // Server CPU per request against the limit's, round by round (issue 28).
      const cpuRatio = (c: ContenderName) => {
        const limit = samples.get('limit')!.cpu;
        return median(samples.get(c)!.cpu.map((v, i) => v / limit[i]!));
      };
      tables.push({
        title: `HTTP, ${framework} (${profile.connections} connections, ${profile.bodyBytes} B events, ${profile.amount} requests per run, median of ${profile.rounds})`,
        columns: ['contender', 'req/s', 'p99 ms', 'ours / this', 'server CPU µs/req', 'CPU: this / limit'],
        rows: HTTP_CONTENDERS.map((c) => [
          LABEL[c],
          formatRate(rps(c)),
          median(samples.get(c)!.p99).toFixed(1),
          formatRatio(ratio(c)),
          median(samples.get(c)!.cpu).toFixed(1),
          formatRatio(cpuRatio(c)),
        ]),
      });
      bars.push(bar(`${framework}: ours vs hand-written`, ratio('hand'), 0.9));
      bars.push(bar(`${framework}: ours vs Stripe recipe`, ratio('stripe'), 1.0));
      bars.push(
        bar(`${framework}: ours server CPU per request / limit's`, cpuRatio('ours'), 1.15, 'x', true),
      );
    }
  } finally {
    await load.stop();
  }
  tables.push(barsTable(bars));
  return {
    id: 'http',
    title: '2. HTTP per framework',
    tables,
    bars,
    notes: [
      'Each server runs in its own process, autocannon in another; every request carries a fresh, pre-signed event id.',
      "Ours answers with respond: 'immediately' and runs a no-op handler for each event after the ack (counted, must equal requests sent).",
      "'ours / this' is the median over rounds of ours divided by that contender in the same round (req/s columns: each contender's own median).",
      "empty: the framework's own raw-body route answering 200 unverified; limit: empty plus one createHmac over the body and JSON.parse (test/bench/lib/limit.ts), the least a verifying receiver does.",
      'by hand (issue 48): our job on the same raw-body route, written by hand: createHmac + timingSafeEqual over t.body, the 300 s check, JSON.parse, a Map of event ids, the answer, then the handler (test/bench/lib/by-hand.ts).',
      "server CPU µs/req: the server process's CPU time (process.cpuUsage: every thread, user and kernel) read before and after each timed run, over its requests; 'CPU: this / limit' is the median of the per-round ratios.",
      ...problems.map((p) => `PROBLEM: ${p}`),
    ],
    seconds: (performance.now() - started) / 1000,
  };
}
