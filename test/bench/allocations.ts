/**
 * `pnpm bench:allocations [--frameworks=fastify,koa,express] [--contenders=empty,limit,ours]
 *   [--requests=20000] [--warmup=5000] [--node=/path/to/node] [--by-function] [--top=25]`
 *
 * Bytes the JavaScript heap allocates per request, and collections per 1,000 requests, on each HTTP
 * bench server: what instruction counts and CPU time hide behind "GC". The server runs normally (no
 * valgrind); after the warm-up it turns on V8's per-collection trace (`--trace-gc-nvp`, which prints the
 * bytes allocated since the previous collection), takes `requests` requests, and turns it off. The sum
 * over the window's collections is its allocation, give or take one young generation (a few MiB) at
 * each edge: small next to the window's total. `--by-function` also runs V8's sampling heap profiler over
 * the window (scavenged objects included) and lists the functions that allocate the most per request.
 */
import { execFileSync } from 'node:child_process';
import { arg } from './lib/args.js';
import { request, stopChild } from './lib/child.js';
import { type LoadRunner, startLoadRunner } from './lib/http-harness.js';
import { renderText } from './lib/report.js';
import { startWindowServer } from './lib/window-server.js';
import type { ContenderName, Framework } from './servers/contenders.js';

const frameworks = arg('frameworks', 'fastify,koa,express').split(',') as Framework[];
const contenders = arg('contenders', 'empty,limit,ours').split(',') as ContenderName[];
const requests = Number(arg('requests', '20000'));
const warmup = Number(arg('warmup', '5000'));
const node = arg('node', process.execPath);
const byFunction = process.argv.includes('--by-function');
const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();

interface Window {
  bytes: number;
  sites?: [string, number][];
  scavenges: number;
  markCompacts: number;
}

/** Adds up the `allocated=` of each collection line V8 printed, and counts them by kind (gc=s, gc=mc…). */
function parseTrace(text: string): Window {
  const window: Window = { bytes: 0, scavenges: 0, markCompacts: 0 };
  for (const line of text.split('\n')) {
    const allocated = / allocated=(\d+)/.exec(line);
    if (!allocated) continue;
    window.bytes += Number(allocated[1]);
    const kind = / gc=(\w+)/.exec(line)?.[1];
    if (kind === 's' || kind === 'ms') window.scavenges++;
    else window.markCompacts++;
  }
  return window;
}

async function measure(framework: Framework, contender: ContenderName, load: LoadRunner): Promise<Window> {
  const server = await startWindowServer(framework, contender, node, load, 'pipe');
  let out = '';
  server.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  try {
    await server.send(warmup);
    await request(server.child, { type: 'gc-trace-on' }, 'gc-trace');
    if (byFunction) await request(server.child, { type: 'heap-sampling-start' }, 'heap-sampling');
    await server.send(requests);
    const sampled = byFunction
      ? await request<{ bySite: [string, number][] }>(
          server.child,
          { type: 'heap-sampling-stop' },
          'heap-sampling',
        )
      : undefined;
    await request(server.child, { type: 'gc-trace-off' }, 'gc-trace');
    await stopChild(server.child);
    return { ...parseTrace(out), sites: sampled?.bySite };
  } finally {
    await stopChild(server.child);
  }
}

const load = await startLoadRunner();
try {
  for (const framework of frameworks) {
    const rows: string[][] = [];
    for (const contender of contenders) {
      const w = await measure(framework, contender, load);
      rows.push([
        contender,
        (w.bytes / requests / 1024).toFixed(1),
        ((w.scavenges * 1000) / requests).toFixed(2),
        String(w.markCompacts),
      ]);
      if (w.sites) {
        console.log(
          renderText({
            title: `${framework}/${contender}: sampled bytes per request by allocating function`,
            columns: ['bytes / request', 'function'],
            rows: w.sites
              .slice(0, Number(arg('top', '25')))
              .map(([site, bytes]) => [(bytes / requests).toFixed(0), site]),
          }),
          '\n',
        );
      }
    }
    console.log(
      renderText({
        title: `${framework}, Node ${version}: JavaScript heap allocation per request (${requests} requests after ${warmup})`,
        columns: ['contender', 'KiB / request', 'scavenges / 1,000 requests', 'mark-compacts in the window'],
        rows,
      }),
      '\n',
    );
  }
} finally {
  await load.stop();
}
process.exit(0);
