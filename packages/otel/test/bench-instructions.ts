/**
 * `pnpm bench:otel-instructions [--frameworks=express,fastify,koa]
 *  [--contenders=none,no-sdk,sdk,hand,app,app-ours] [--requests=2000] [--windows=5] [--warmup=5000]
 *  [--node=path/to/node] [--keep=dir] [--processes=1]`
 *
 * The otel bench suite's servers (bench-server.ts) under valgrind's callgrind, as
 * test/bench/instructions.ts counts the HTTP suite's: main-thread instructions per request, a figure that
 * does not move with the machine's load, so the cost of each piece of instrumentation shows even on
 * shared cores. It leaves out the kernel and V8's background threads (JIT, concurrent GC).
 *
 * Issue 28's instruction bars, checked when both contenders of a bar are counted: the instrumented app with
 * ours adds at most 10% to the instrumented app (app-ours / app <= 1.10x); ours with the SDK does at most
 * 1.1x the hand-written equivalent of its default recording (sdk / hand <= 1.10x); with no SDK registered,
 * at most 3% more than none (no-sdk / none <= 1.03x). Exits 1 when one fails.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { arg } from '../../../test/bench/lib/args.js';
import { instructionsPerWindow, requireValgrind } from '../../../test/bench/lib/callgrind.js';
import { type LoadRunner, startLoadRunner } from '../../../test/bench/lib/http-harness.js';
import { renderText } from '../../../test/bench/lib/report.js';
import { median } from '../../../test/bench/lib/stats.js';
import type { Framework } from '../../../test/bench/servers/contenders.js';
import type { Instrumented, OtelServerConfig } from './bench-server.js';

const frameworks = arg('frameworks', 'express,fastify,koa').split(',') as Framework[];
const contenders = arg('contenders', 'none,no-sdk,sdk,hand,app,app-ours').split(',') as Instrumented[];
const requests = Number(arg('requests', '2000'));
const windows = Number(arg('windows', '5'));
const warmup = Number(arg('warmup', '5000'));
// Servers per contender, started in turn (a, b, a, b …): the same server counts up to 6% apart from one
// process to the next (the JIT's and the collector's timing), more than some bars' margin. Each figure is
// then the median of every window of every process.
const processes = Number(arg('processes', '1'));
// Another Node binary for the servers, e.g. test/.tmp/runtimes/node_modules/node24/bin/node: Node 24's
// AsyncLocalStorage (async context frames) costs the SDK's context manager far less than Node 20's hooks.
const node = arg('node', process.execPath);
// Keeps each server's callgrind dumps in dir/<framework>-<contender>, for `pnpm bench:callgrind-diff`.
const keep = process.argv.some((a) => a.startsWith('--keep=')) ? resolve(arg('keep', '')) : undefined;
const SERVER = new URL('./bench-server.ts', import.meta.url);
const nodeVersion = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();

requireValgrind();

async function measure(
  framework: Framework,
  instrumented: Instrumented,
  load: LoadRunner,
  round: number,
): Promise<number[]> {
  const config: OtelServerConfig = { framework, instrumented, maxBodyBytes: 1024 * 1024 };
  const keepDir = keep && join(keep, `${framework}-${instrumented}${round > 0 ? `-${round + 1}` : ''}`);
  if (keepDir) mkdirSync(keepDir, { recursive: true });
  return instructionsPerWindow({
    server: SERVER,
    config,
    label: `${framework}/${instrumented}`,
    load,
    warmup,
    requests,
    windows,
    node,
    keepDir,
  });
}

/** [a, b, most]: a's instructions over b's, at most `most`. */
const BARS: [Instrumented, Instrumented, number][] = [
  ['app-ours', 'app', 1.1],
  ['sdk', 'hand', 1.1],
  ['no-sdk', 'none', 1.03],
];
let failed = false;
const load = await startLoadRunner();
try {
  for (const framework of frameworks) {
    const perRequest = new Map<Instrumented, number>();
    const windowsOf = new Map<Instrumented, number[]>(contenders.map((c) => [c, []]));
    for (let p = 0; p < processes; p++) {
      for (const c of contenders) windowsOf.get(c)!.push(...(await measure(framework, c, load, p)));
    }
    for (const c of contenders) perRequest.set(c, median(windowsOf.get(c)!));
    const base = perRequest.get('none');
    console.log(
      renderText({
        title: `${framework} on Node ${nodeVersion}: main-thread instructions per request (median of ${windows} windows of ${requests} requests, after ${warmup}, on each of ${processes} server${processes > 1 ? 's' : ''})`,
        columns: ['receiver', 'instructions', 'this / none', 'none / this'],
        rows: contenders.map((c) => [
          c,
          `${(perRequest.get(c)! / 1000).toFixed(0)}k`,
          base === undefined ? '-' : `${(perRequest.get(c)! / base).toFixed(2)}x`,
          base === undefined ? '-' : `${(base / perRequest.get(c)!).toFixed(2)}x`,
        ]),
      }),
      '\n',
    );
    for (const [a, b, most] of BARS) {
      const ratio =
        perRequest.has(a) && perRequest.has(b) ? perRequest.get(a)! / perRequest.get(b)! : undefined;
      if (ratio === undefined) continue;
      failed ||= ratio > most;
      console.log(
        `bar: ${framework} ${a} / ${b} ${ratio.toFixed(3)}x (at most ${most.toFixed(2)}x): ${ratio <= most ? 'pass' : 'FAIL'}`,
      );
    }
    console.log('');
  }
} finally {
  await load.stop();
}
process.exit(failed ? 1 : 0);
