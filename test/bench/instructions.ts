/**
 * `pnpm bench:instructions [--frameworks=koa,fastify] [--contenders=empty,limit,ours] [--node=/path/to/node]
 *   [--requests=2000] [--windows=5] [--warmup=5000] [--keep=dir] [--from=build|source]`
 *
 * Instructions per request on each HTTP server's main thread, counted by valgrind's callgrind: the
 * same servers and load as the http suite, but a count that does not move with what else the machine
 * is doing. Timings here vary 10-25% between identical runs, more than the differences the http bars
 * ask about; this tells whether a change made the request path do more work or less. It leaves out
 * the kernel (network syscalls) and V8's background threads (JIT, concurrent GC), so it complements the
 * throughput bars and does not replace them. About two minutes per contender (the server runs ~50x slower).
 *
 * Ours is the published build (packages/<name>/dist: run `pnpm build` first); `--from=source` counts the
 * TypeScript sources under tsx instead, whose keepNames adds work the build does not do
 * (lib/code-under-test.ts).
 *
 * Bars: ours at most 1.10x the limit's instructions per request (issue 28: the framework's raw-body
 * route, one HMAC and JSON.parse) and at most 1.05x the same job by hand's (issue 48: lib/by-hand.ts),
 * when both are among the contenders. `--keep=dir` keeps each contender's dumps in
 * dir/<framework>-<contender>/ for callgrind_annotate. Exits 1 when a bar fails.
 */

import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { arg } from './lib/args.js';
import { instructionsPerWindow, requireValgrind } from './lib/callgrind.js';
import { codeFrom, describeCode, nodeImports } from './lib/code-under-test.js';
import { startLoadRunner } from './lib/http-harness.js';
import { renderText } from './lib/report.js';
import { median } from './lib/stats.js';
import type { ContenderName, Framework } from './servers/contenders.js';

const frameworks = arg('frameworks', 'express,fastify,koa').split(',') as Framework[];
const requests = Number(arg('requests', '2000'));
const windows = Number(arg('windows', '5'));
const warmup = Number(arg('warmup', '5000'));
const CONTENDERS = arg('contenders', 'empty,limit,ours,byhand,hand,stripe').split(',') as ContenderName[];
const node = arg('node', process.execPath);
const keep = process.argv.some((a) => a.startsWith('--keep=')) ? resolve(arg('keep', '')) : undefined;
const SERVER = new URL('./servers/http-server.ts', import.meta.url);
const from = codeFrom();
const BARS: [ContenderName, number, string][] = [
  ['limit', 1.1, 'issue 28'],
  ['byhand', 1.05, 'issue 48'],
];

requireValgrind();
const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
console.log(`Node ${version} (${node})`);
console.log(`${describeCode(from, ['core', ...frameworks])}\n`);

let failed = false;
const load = await startLoadRunner();
try {
  for (const framework of frameworks) {
    const perRequest = new Map<ContenderName, number>();
    for (const contender of CONTENDERS) {
      const keepDir = keep && join(keep, `${framework}-${contender}`);
      if (keepDir) mkdirSync(keepDir, { recursive: true });
      const counts = await instructionsPerWindow({
        server: SERVER,
        config: { framework, contender, store: 'memory', maxBodyBytes: 1024 * 1024 },
        label: `${framework}/${contender}`,
        load,
        warmup,
        requests,
        windows,
        node,
        imports: nodeImports(from),
        keepDir,
      });
      perRequest.set(contender, median(counts));
      console.log(`${framework}/${contender}: ${counts.map((n) => `${(n / 1000).toFixed(1)}k`).join(', ')}`);
    }
    const of = (c: ContenderName) => perRequest.get(c);
    const ours = of('ours');
    const base = of('limit') ?? ours!;
    const columns = ['contender', 'instructions', `this / ${of('limit') ? 'limit' : 'ours'}`];
    if (ours !== undefined) columns.push('ours / this');
    console.log(
      renderText({
        title: `${framework}, Node ${version}, ${from === 'build' ? 'published build' : 'sources under tsx'}: main-thread instructions per request (median of ${windows} windows of ${requests} requests, after ${warmup})`,
        columns,
        rows: CONTENDERS.map((c) => {
          const row = [c, `${(of(c)! / 1000).toFixed(0)}k`, `${(of(c)! / base).toFixed(2)}x`];
          if (ours !== undefined) row.push(`${(ours / of(c)!).toFixed(2)}x`);
          return row;
        }),
      }),
      '\n',
    );
    for (const [other, max, issue] of BARS) {
      const theirs = of(other);
      if (ours === undefined || theirs === undefined) continue;
      const pass = ours / theirs <= max;
      failed ||= !pass;
      console.log(
        `bar (${issue}): ${framework} ours / ${other} ${(ours / theirs).toFixed(2)}x (at most ${max.toFixed(2)}x): ${pass ? 'pass' : 'FAIL'}\n`,
      );
    }
  }
} finally {
  await load.stop();
}
process.exit(failed ? 1 : 0);
