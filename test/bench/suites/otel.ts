import type { ChildProcess } from 'node:child_process';
import type { Instrumented, OtelServerConfig } from '../../../packages/otel/test/bench-server.js';
import { forkTs, nextMessage, request, stopChild } from '../lib/child.js';
import { startLoadRunner } from '../lib/http-harness.js';
import { inRotation } from '../lib/in-rotation.js';
import { loadProblem } from '../lib/load-checks.js';
import { type BarCheck, bar, barsTable, type SuiteResult, type Table } from '../lib/report.js';
import { formatRate, formatRatio, median } from '../lib/stats.js';
import type { HttpProfile } from './http.js';

const SERVER = new URL('../../../packages/otel/test/bench-server.ts', import.meta.url);
const LIMIT = 1024 * 1024;
const CONTENDERS: Instrumented[] = [
  'none',
  'no-sdk',
  'context',
  'sdk',
  'sdk-full',
  'sdk-sent',
  'app',
  'app-ours',
  'hand',
];
/** The bars' contenders, in each framework's table; the others go to the breakdown table. */
const MAIN: Instrumented[] = ['none', 'no-sdk', 'sdk', 'hand', 'app', 'app-ours'];
const LABEL: Record<Instrumented, string> = {
  none: 'no instrumentation',
  'no-sdk': 'otelInstrumentation(), no SDK registered',
  context: 'no instrumentation, the SDK context manager in use',
  sdk: 'otelInstrumentation() + SDK, in-memory exporters',
  'sdk-full': "the same, detail: 'full'",
  'sdk-sent': 'the SDK default, the exporter dropping spans as it exports them',
  app: 'instrumented app: SDK + HTTP and framework instrumentation',
  'app-ours': 'the instrumented app + otelInstrumentation()',
  hand: 'SDK + a hand-written equivalent of our default recording',
};
/**
 * Spans each delivery must produce: the delivery's, and with 'full' its handler's. The instrumented
 * apps' HTTP and framework spans differ by framework: at least one each, plus ours.
 */
const SPANS: Record<Instrumented, number> = {
  none: 0,
  'no-sdk': 0,
  context: 0,
  sdk: 1,
  'sdk-full': 2,
  'sdk-sent': 1,
  app: 1,
  'app-ours': 2,
  hand: 1,
};
const AT_LEAST: ReadonlySet<Instrumented> = new Set(['app', 'app-ours']);

interface Running {
  config: OtelServerConfig;
  child: ChildProcess;
  url: string;
}

async function start(config: OtelServerConfig): Promise<Running> {
  const child = await forkTs(SERVER, [JSON.stringify(config)], ['--expose-gc']);
  const { port } = await nextMessage<{ port: number }>(child, 'ready');
  return { config, child, url: `http://127.0.0.1:${port}/webhooks` };
}

/**
 * Issue 18's cost bar: the HTTP suite's load (fresh signed events, a handler each after the ack) on
 * a receiver without instrumentation, with `otelInstrumentation()` and no SDK (the API's no-op), and
 * with the SDK recording every span and metric into in-memory exporters; and what that cost is made of
 * (the SDK's context manager alone, and `detail: 'full'`).
 */
export async function runOtel(profile: HttpProfile): Promise<SuiteResult> {
  const started = performance.now();
  const tables: Table[] = [];
  const breakdown: string[][] = [];
  const bars: BarCheck[] = [];
  const problems: string[] = [];
  const load = await startLoadRunner();
  try {
    for (const framework of profile.frameworks) {
      const servers: Running[] = [];
      try {
        for (const instrumented of CONTENDERS) {
          servers.push(await start({ framework, instrumented, maxBodyBytes: LIMIT }));
        }
        const rps = new Map<Instrumented, number[]>(CONTENDERS.map((c) => [c, []]));
        const p99 = new Map<Instrumented, number[]>(CONTENDERS.map((c) => [c, []]));
        const sent = new Map<Instrumented, number>(CONTENDERS.map((c) => [c, 0]));
        const cpu = new Map<Instrumented, number>();
        const fire = async (server: Running, amount: number, timed: boolean) => {
          const r = await load.run({
            url: server.url,
            amount,
            connections: profile.connections,
            bodyBytes: profile.bodyBytes,
          });
          const c = server.config.instrumented;
          sent.set(c, sent.get(c)! + r.requests);
          const problem = loadProblem(`${framework}/${c}`, r);
          if (problem) problems.push(problem);
          if (!timed) return;
          rps.get(c)!.push(r.rps);
          p99.get(c)!.push(r.p99);
        };
        for (const server of servers) await fire(server, profile.warmupAmount, false);
        await inRotation(profile.rounds, servers, (server) => fire(server, profile.amount, true));
        for (const server of servers) {
          const c = server.config.instrumented;
          const stats = await request<{ accepted: number; spans: number; cpuMicros: number }>(
            server.child,
            { type: 'stats' },
            'stats',
          );
          cpu.set(c, stats.cpuMicros / sent.get(c)!);
          if (stats.accepted !== sent.get(c)) {
            problems.push(`${framework}/${c}: sent ${sent.get(c)}, handled ${stats.accepted}`);
          }
          // Proof the SDK recorded every delivery, and nothing was recorded without it.
          const expected = SPANS[c] * sent.get(c)!;
          if (AT_LEAST.has(c) ? stats.spans < expected : stats.spans !== expected) {
            problems.push(
              `${framework}/${c}: ${stats.spans} spans for ${sent.get(c)} deliveries, not ${SPANS[c]} each`,
            );
          }
        }
        const m = (c: Instrumented) => median(rps.get(c)!);
        tables.push({
          title: `HTTP, ${framework} (${profile.connections} connections, ${profile.bodyBytes} B events, ${profile.amount} requests per run, median of ${profile.rounds})`,
          columns: ['receiver', 'req/s', 'p99 ms', 'this / none', 'server CPU µs/req'],
          rows: MAIN.map((c) => [
            LABEL[c],
            formatRate(m(c)),
            median(p99.get(c)!).toFixed(1),
            formatRatio(m(c) / m('none')),
            cpu.get(c)!.toFixed(0),
          ]),
        });
        for (const c of CONTENDERS.filter((c) => !MAIN.includes(c))) {
          breakdown.push([
            framework,
            LABEL[c],
            formatRate(m(c)),
            formatRatio(m(c) / m('none')),
            cpu.get(c)!.toFixed(0),
          ]);
        }
        // Issue 28's bars, each the median of per-round ratios (rounds alternate the servers).
        const perRound = (a: Instrumented, b: Instrumented) =>
          median(rps.get(a)!.map((r, i) => r / rps.get(b)![i]!));
        bars.push(
          bar(
            `${framework}: instrumented app + ours vs the instrumented app`,
            perRound('app-ours', 'app'),
            0.9,
          ),
        );
        bars.push(
          bar(`${framework}: otelInstrumentation() without an SDK vs none`, perRound('no-sdk', 'none'), 0.97),
        );
      } finally {
        await Promise.all(servers.map((s) => stopChild(s.child)));
      }
    }
  } finally {
    await load.stop();
  }
  tables.push({
    title: 'What the cost is made of: the context manager alone, and the full detail',
    columns: ['framework', 'receiver', 'req/s', 'this / none', 'server CPU µs/req'],
    rows: breakdown,
  });
  tables.push(barsTable(bars));
  return {
    id: 'otel',
    title: '7. OpenTelemetry cost over HTTP',
    tables,
    bars,
    notes: [
      "Nine servers per framework, each in its own process, the same receiver (MemoryStore, respond: 'immediately', a no-op handler): without instrumentation; with otelInstrumentation() and no SDK; without instrumentation but with the SDK's context manager in use (Node 20's AsyncLocalStorage then hooks every promise: the part of the SDK's cost no instrumentation can avoid); with otelInstrumentation() and the SDK as an application sets it up (AsyncLocalStorage context manager, BatchSpanProcessor into an InMemorySpanExporter, a MeterProvider with a pull reader); and the same with detail: 'full'.",
      'The SDK servers with in-memory exporters count and drop their exported spans every 200 ms so their heaps do not grow; the instrumented apps and the sdk-sent server export to one that counts each batch and lets go of it, as a network exporter does once it has sent it. Every delivery must produce one span (the delivery), two with detail: full (and its handler).',
      "Issue 28: the instrumented app is the SDK with @opentelemetry/instrumentation-http and the framework's instrumentation (-express, -koa, @fastify/otel; packages/otel/test/instrumented-app.ts), with and without otelInstrumentation(); the hand-written equivalent records ours' default (one span, the same attributes, two histogram points and a counter) on the receiver's instrumentation hook (hand-instrumentation.ts). Bars: the instrumented app keeps >= 0.90x with ours added; with no SDK registered >= 0.97x of none (each the median of per-round ratios). The instruction bars are counted by packages/otel/test/bench-instructions.ts --contenders=app,app-ours,hand,sdk,no-sdk,none.",
      "server CPU µs/req: the server process's CPU time (every thread, kernel time included) over all its requests, warm-up included: what the main-thread instruction counts (packages/otel/test/bench-instructions.ts) leave out. It moves with the machine's load too.",
      ...problems.map((p) => `PROBLEM: ${p}`),
    ],
    seconds: (performance.now() - started) / 1000,
  };
}
