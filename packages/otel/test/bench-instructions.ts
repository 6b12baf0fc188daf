/**
 * `pnpm exec tsx packages/otel/test/bench-instructions.ts [--frameworks=express,fastify,koa]
 *  [--contenders=none,no-sdk,sdk] [--requests=2000] [--warmup=5000]`
 *
 * The otel bench suite's servers (bench-server.ts) under valgrind's callgrind, as
 * test/bench/instructions.ts counts the HTTP suite's: main-thread instructions per request, a figure that
 * does not move with the machine's load, so the cost of each piece of instrumentation shows even on
 * shared cores. The suite's throughput bar stays the one issue 18 names; this is its stable companion.
 * It leaves out the kernel and V8's background threads (JIT, concurrent GC).
 */
import { execFileSync, fork } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nextMessage, stopChild } from '../../../test/bench/lib/child.js';
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

try {
  execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
} catch {
  console.error('valgrind not found on PATH: install it (Debian/Ubuntu: apt-get install valgrind).');
  process.exit(2);
}

/** The main thread's instruction total from a callgrind dump written with --separate-threads=yes. */
function mainThreadInstructions(dir: string): number {
  const file = readdirSync(dir).find((f) => f.endsWith('.1-01'));
  if (!file) throw new Error(`no main-thread dump in ${dir}`);
  const total = /^(?:summary|totals): (\d+)/m.exec(readFileSync(join(dir, file), 'utf8'));
  if (!total) throw new Error(`no instruction total in ${file}`);
  return Number(total[1]);
}

async function measure(framework: Framework, instrumented: Instrumented, load: LoadRunner) {
  const dir = mkdtempSync(join(tmpdir(), 'sms-webhooks-otel-callgrind-'));
  const config: OtelServerConfig = { framework, instrumented, maxBodyBytes: 1024 * 1024 };
  const child = fork(fileURLToPath(new URL('./bench-server.ts', import.meta.url)), [JSON.stringify(config)], {
    execPath: 'valgrind',
    execArgv: [
      '--tool=callgrind',
      '-q',
      '--separate-threads=yes',
      `--callgrind-out-file=${join(dir, 'cg')}`,
      process.execPath,
      '--import',
      'tsx',
    ],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  try {
    const { port } = await nextMessage<{ port: number }>(child, 'ready', 10 * 60_000);
    const url = `http://127.0.0.1:${port}/webhooks`;
    // Long enough for the JIT to settle: optimised code is what serves real traffic.
    await load.run({ url, amount: warmup, connections: 8, bodyBytes: 1024 });
    execFileSync('callgrind_control', ['--zero', String(child.pid)], { stdio: 'ignore' });
    const result = await load.run({ url, amount: requests, connections: 8, bodyBytes: 1024 });
    if (result.non2xx || result.errors || result.timeouts)
      throw new Error(`${framework}/${instrumented}: failed requests`);
    execFileSync('callgrind_control', ['--dump', String(child.pid)], { stdio: 'ignore' });
    return mainThreadInstructions(dir) / result.requests;
  } finally {
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

const load = await startLoadRunner();
try {
  for (const framework of frameworks) {
    const perRequest = new Map<Instrumented, number>();
    for (const c of contenders) perRequest.set(c, await measure(framework, c, load));
    const base = perRequest.get('none');
    console.log(
      renderText({
        title: `${framework}: main-thread instructions per request (${requests} requests after ${warmup})`,
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
