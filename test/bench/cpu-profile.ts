/**
 * `pnpm bench:cpu-profile [--frameworks=fastify] [--contenders=limit,ours] [--requests=30000]
 *   [--warmup=5000] [--interval=50] [--top=25] [--node=/path/to/node]`
 *
 * Where a bench server's CPU time goes, from V8's sampling CPU profiler (`--cpu-prof`) over a window of
 * requests: busy time per request (idle samples left out), by group (our packages, the framework, Node's
 * own JavaScript, garbage collection, native and (program) time) and by function (self time). Samples are
 * taken only while the window runs (the profiler starts and stops over IPC, `node:inspector`), so
 * start-up and compilation stay out. A profile is a sample, not a count: compare contenders of the same
 * run, and read a group's share rather than its microseconds on a loaded machine.
 */
import { execFileSync } from 'node:child_process';
import { arg } from './lib/args.js';
import { request, stopChild } from './lib/child.js';
import { startLoadRunner } from './lib/http-harness.js';
import { renderText } from './lib/report.js';
import { startWindowServer } from './lib/window-server.js';
import type { ContenderName, Framework } from './servers/contenders.js';

const frameworks = arg('frameworks', 'fastify').split(',') as Framework[];
const contenders = arg('contenders', 'limit,ours').split(',') as ContenderName[];
const requests = Number(arg('requests', '30000'));
const warmup = Number(arg('warmup', '5000'));
const interval = Number(arg('interval', '50'));
const top = Number(arg('top', '25'));
const node = arg('node', process.execPath);
const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** What a function is, from its script's URL. */
function groupOf({ functionName, url }: ProfileNode['callFrame']): string {
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (functionName === '(idle)') return 'idle';
  if (functionName === '(program)' || url === '') return 'native, (program)';
  if (url.includes('/packages/') && !url.includes('node_modules')) return 'ours (packages/*)';
  if (url.includes('/test/bench/')) return 'bench route (test/bench)';
  if (url.startsWith('node:')) return 'Node (node:*)';
  if (
    /node_modules\/(\.pnpm\/)?(@fastify|fastify|find-my-way|avvio|light-my-request|express|router|koa|@koa|body-parser|raw-body)/.test(
      url,
    )
  ) {
    return 'framework and raw-body';
  }
  return 'other modules';
}

function summarise(profile: CpuProfile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  const groups = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)!.callFrame;
    const group = groupOf(frame);
    // Idle, and the profiler's own stop (serialising the profile inside `session.post`), are not the server's.
    if (group === 'idle' || (frame.url === 'node:inspector' && frame.functionName === 'post')) return;
    const micros = profile.timeDeltas[i] ?? 0;
    busy += micros;
    groups.set(group, (groups.get(group) ?? 0) + micros);
    const site = `${frame.functionName || '(anonymous)'} ${frame.url.split('/').slice(-2).join('/')}:${frame.lineNumber + 1}`;
    self.set(site, (self.get(site) ?? 0) + micros);
  });
  return { busy, groups, self };
}

const load = await startLoadRunner();
try {
  for (const framework of frameworks) {
    const results = new Map<ContenderName, ReturnType<typeof summarise>>();
    for (const contender of contenders) {
      const server = await startWindowServer(framework, contender, node, load);
      try {
        await server.send(warmup);
        await request(server.child, { type: 'cpu-profile-start', interval }, 'cpu-profile');
        await server.send(requests);
        const { profile } = await request<{ profile: CpuProfile }>(
          server.child,
          { type: 'cpu-profile-stop' },
          'cpu-profile',
        );
        results.set(contender, summarise(profile));
      } finally {
        await stopChild(server.child);
      }
    }
    const us = (micros: number) => (micros / requests).toFixed(2);
    const groupNames = [...new Set([...results.values()].flatMap((r) => [...r.groups.keys()]))].sort();
    console.log(
      renderText({
        title: `${framework}, Node ${version}: busy CPU µs per request on the main thread, by group (sampled every ${interval} µs over ${requests} requests after ${warmup})`,
        columns: ['group', ...contenders],
        rows: [
          ...groupNames.map((g) => [g, ...contenders.map((c) => us(results.get(c)!.groups.get(g) ?? 0))]),
          ['busy, in all', ...contenders.map((c) => us(results.get(c)!.busy))],
        ],
      }),
      '\n',
    );
    for (const c of contenders) {
      const { self } = results.get(c)!;
      console.log(
        renderText({
          title: `${framework}/${c}: self µs per request, top ${top} functions`,
          columns: ['µs / request', 'function'],
          rows: [...self]
            .sort((a, b) => b[1] - a[1])
            .slice(0, top)
            .map(([site, m]) => [us(m), site]),
        }),
        '\n',
      );
    }
  }
} finally {
  await load.stop();
}
process.exit(0);
