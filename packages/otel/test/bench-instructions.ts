/**
 * `pnpm exec tsx packages/otel/test/bench-instructions.ts [--frameworks=express,fastify,koa]
 *  [--contenders=none,no-sdk,sdk] [--requests=2000] [--warmup=5000] [--node=path/to/node]`
 *
 * The otel bench suite's servers (bench-server.ts) under valgrind's callgrind, as
 * test/bench/instructions.ts counts the HTTP suite's: main-thread instructions per request, a figure that
 * does not move with the machine's load, so the cost of each piece of instrumentation shows even on
 * shared cores. The suite's throughput bar stays the one issue 18 names; this is its stable companion.
 * It leaves out the kernel and V8's background threads (JIT, concurrent GC).
 */
import { execFileSync } from 'node:child_process';
import { instructionsPerRequest, requireValgrind } from '../../../test/bench/lib/callgrind.js';
import { type LoadRunner, startLoadRunner } from '../../../test/bench/lib/http-harness.js';
import { renderText } from '../../../test/bench/lib/report.js';
import type { Framework } from '../../../test/bench/servers/contenders.js';
import type { Instrumented, OtelServerConfig } from './bench-server.js';

const arg = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const frameworks = arg('frameworks', 'express,fastify,koa').split(',') as Framework[];
const contenders = arg('contenders', 'none,no-sdk,sdk').split(',') as Instrumented[];
const requests = Number(arg('requests', '2000'));
const warmup = Number(arg('warmup', '5000'));
// Another Node binary for the servers, e.g. test/.tmp/runtimes/node_modules/node24/bin/node: Node 24's
// AsyncLocalStorage (async context frames) costs the SDK's context manager far less than Node 20's hooks.
const node = arg('node', process.execPath);
const SERVER = new URL('./bench-server.ts', import.meta.url);
const nodeVersion = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();

requireValgrind();

async function measure(framework: Framework, instrumented: Instrumented, load: LoadRunner): Promise<number> {
  const config: OtelServerConfig = { framework, instrumented, maxBodyBytes: 1024 * 1024 };
  return instructionsPerRequest({
    server: SERVER,
    config,
    label: `${framework}/${instrumented}`,
    load,
    warmup,
    requests,
    node,
  });
}

const load = await startLoadRunner();
try {
  for (const framework of frameworks) {
    const perRequest = new Map<Instrumented, number>();
    for (const c of contenders) perRequest.set(c, await measure(framework, c, load));
    const base = perRequest.get('none');
    console.log(
      renderText({
        title: `${framework} on Node ${nodeVersion}: main-thread instructions per request (${requests} requests after ${warmup})`,
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
  }
} finally {
  await load.stop();
}
