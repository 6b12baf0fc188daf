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
import { instructionsPerRequest, requireValgrind } from './lib/callgrind.js';
import { startLoadRunner } from './lib/http-harness.js';
import { renderText } from './lib/report.js';
import type { ContenderName, Framework } from './servers/contenders.js';

const arg = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const frameworks = arg('frameworks', 'express,fastify,koa').split(',') as Framework[];
const requests = Number(arg('requests', '2000'));
const warmup = Number(arg('warmup', '5000'));
const CONTENDERS = arg('contenders', 'ours,hand,stripe').split(',') as ContenderName[];
const SERVER = new URL('./servers/http-server.ts', import.meta.url);

requireValgrind();

const load = await startLoadRunner();
try {
  for (const framework of frameworks) {
    const perRequest = new Map<ContenderName, number>();
    for (const contender of CONTENDERS)
      perRequest.set(
        contender,
        await instructionsPerRequest({
          server: SERVER,
          config: { framework, contender, store: 'memory', maxBodyBytes: 1024 * 1024 },
          label: `${framework}/${contender}`,
          load,
          warmup,
          requests,
        }),
      );
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
