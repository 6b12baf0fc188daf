/**
 * `pnpm bench:instructions [--frameworks=koa,fastify] [--contenders=empty,limit,ours] [--node=/path/to/node]
 *   [--requests=2000] [--windows=5] [--warmup=5000] [--keep=dir]`
 *
 * Instructions per request on each HTTP server's main thread, counted by valgrind's callgrind: the
 * same servers and load as the http suite, but a count that does not move with what else the machine
 * is doing. Timings here vary 10-25% between identical runs, more than the differences the http bars
 * ask about; this tells whether a change made the request path do more work or less. It leaves out
 * the kernel (network syscalls) and V8's background threads (JIT, concurrent GC), so it complements the
 * throughput bars and does not replace them. About two minutes per contender (the server runs ~50x slower).
 *
 * Bar (issue 28): ours at most 1.10x the limit's instructions per request (the framework's raw-body
 * route, one HMAC and JSON.parse), when both are among the contenders. `--keep=dir` keeps each
 * contender's dumps in dir/<framework>-<contender>/ for callgrind_annotate. Exits 1 when a bar fails.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { arg } from './lib/args.js';
import { instructionsPerRequest, requireValgrind } from './lib/callgrind.js';
import { startLoadRunner } from './lib/http-harness.js';
import { renderText } from './lib/report.js';
import type { ContenderName, Framework } from './servers/contenders.js';

const frameworks = arg('frameworks', 'express,fastify,koa').split(',') as Framework[];
const requests = Number(arg('requests', '2000'));
const windows = Number(arg('windows', '5'));
const warmup = Number(arg('warmup', '5000'));
const CONTENDERS = arg('contenders', 'empty,limit,ours,hand,stripe').split(',') as ContenderName[];
const node = arg('node', process.execPath);
const keep = process.argv.some((a) => a.startsWith('--keep=')) ? resolve(arg('keep', '')) : undefined;
const SERVER = new URL('./servers/http-server.ts', import.meta.url);
const OURS_OVER_LIMIT_MAX = 1.1;

requireValgrind();
const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
console.log(`Node ${version} (${node})\n`);

let failed = false;
const load = await startLoadRunner();
try {
  for (const framework of frameworks) {
    const perRequest = new Map<ContenderName, number>();
    for (const contender of CONTENDERS) {
      const keepDir = keep && join(keep, `${framework}-${contender}`);
      if (keepDir) mkdirSync(keepDir, { recursive: true });
      perRequest.set(
        contender,
        await instructionsPerRequest({
          server: SERVER,
          config: { framework, contender, store: 'memory', maxBodyBytes: 1024 * 1024 },
          label: `${framework}/${contender}`,
          load,
          warmup,
          requests,
          windows,
          node,
          keepDir,
        }),
      );
    }
    const of = (c: ContenderName) => perRequest.get(c);
    const base = of('limit') ?? of('ours')!;
    console.log(
      renderText({
        title: `${framework}, Node ${version}: main-thread instructions per request (median of ${windows} windows of ${requests} requests, after ${warmup})`,
        columns: ['contender', 'instructions', `this / ${of('limit') ? 'limit' : 'ours'}`],
        rows: CONTENDERS.map((c) => [c, `${(of(c)! / 1000).toFixed(0)}k`, `${(of(c)! / base).toFixed(2)}x`]),
      }),
      '\n',
    );
    const ours = of('ours');
    const limit = of('limit');
    if (ours !== undefined && limit !== undefined) {
      const pass = ours / limit <= OURS_OVER_LIMIT_MAX;
      failed ||= !pass;
      console.log(
        `bar: ${framework} ours / limit ${(ours / limit).toFixed(2)}x (at most ${OURS_OVER_LIMIT_MAX.toFixed(2)}x): ${pass ? 'pass' : 'FAIL'}\n`,
      );
    }
  }
} finally {
  await load.stop();
}
process.exit(failed ? 1 : 0);
