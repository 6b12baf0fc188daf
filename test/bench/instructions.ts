/**
 * `pnpm bench:instructions [--frameworks=koa,fastify] [--contenders=ours,hand] [--requests=2000] [--warmup=5000]`
 *
 * Instructions per request on each HTTP server's main thread, counted by valgrind's callgrind: the
 * same servers and load as the http suite, but a count that does not move with what else the machine
 * is doing. Timings here vary 10-25% between identical runs, more than the differences the http bars
 * ask about; this tells whether a change made the request path do more work or less. It leaves out
 * the kernel (network syscalls) and V8's background threads (JIT, concurrent GC), so it complements the
 * throughput bars and does not replace them. About two minutes per contender (the server runs ~50x slower).
 */
import { execFileSync, fork } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nextMessage, stopChild } from './lib/child.js';
import { type LoadRunner, startLoadRunner } from './lib/http-harness.js';
import { renderText } from './lib/report.js';
import type { ContenderName, Framework } from './servers/contenders.js';

const arg = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const frameworks = arg('frameworks', 'express,fastify,koa').split(',') as Framework[];
const requests = Number(arg('requests', '2000'));
const warmup = Number(arg('warmup', '5000'));
const CONTENDERS = arg('contenders', 'ours,hand,stripe').split(',') as ContenderName[];

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

async function measure(framework: Framework, contender: ContenderName, load: LoadRunner) {
  const dir = mkdtempSync(join(tmpdir(), 'sms-webhooks-callgrind-'));
  const config = { framework, contender, store: 'memory', maxBodyBytes: 1024 * 1024 };
  const child = fork(
    fileURLToPath(new URL('./servers/http-server.ts', import.meta.url)),
    [JSON.stringify(config)],
    {
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
    },
  );
  try {
    const { port } = await nextMessage<{ port: number }>(child, 'ready', 10 * 60_000);
    const url = `http://127.0.0.1:${port}/webhooks`;
    // Long enough for the JIT to settle: optimised code is what serves real traffic.
    await load.run({ url, amount: warmup, connections: 8, bodyBytes: 1024 });
    execFileSync('callgrind_control', ['--zero', String(child.pid)], { stdio: 'ignore' });
    const result = await load.run({ url, amount: requests, connections: 8, bodyBytes: 1024 });
    if (result.non2xx || result.errors || result.timeouts)
      throw new Error(`${framework}/${contender}: failed requests`);
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
    const perRequest = new Map<ContenderName, number>();
    for (const contender of CONTENDERS) perRequest.set(contender, await measure(framework, contender, load));
    const ours = perRequest.get('ours')!;
    console.log(
      renderText({
        title: `${framework}: main-thread instructions per request (${requests} requests after ${warmup})`,
        columns: ['contender', 'instructions', 'this / ours'],
        rows: CONTENDERS.map((c) => [
          c,
          `${(perRequest.get(c)! / 1000).toFixed(0)}k`,
          `${(perRequest.get(c)! / ours).toFixed(2)}x`,
        ]),
      }),
      '\n',
    );
  }
} finally {
  await load.stop();
}
