/**
 * One server under test, in its own process: `node --import tsx http-server.ts '<ServerConfig json>'`.
 * Talks to the benchmark over IPC: sends { type: 'ready', port }, answers 'stats' and the RSS probe, and
 * turns V8's per-collection trace on and off around a window of requests (allocations.ts reads it).
 */
import type { Server } from 'node:http';
import { Session } from 'node:inspector/promises';
import { setFlagsFromString } from 'node:v8';
import { serveParent, startChild } from '../lib/bench-child.js';
import { counters, makeReceiver, makeStore, type ServerConfig } from './contenders.js';
import { expressApp } from './express-app.js';
import { fastifyApp } from './fastify-app.js';
import { koaApp } from './koa-app.js';

export type ServerRequest =
  | { type: 'stats' }
  | { type: 'cpu' }
  | { type: 'rss-start' }
  | { type: 'rss-stop' }
  | { type: 'gc-trace-on' }
  | { type: 'gc-trace-off' }
  | { type: 'heap-sampling-start' }
  | { type: 'heap-sampling-stop' }
  | { type: 'cpu-profile-start'; interval: number }
  | { type: 'cpu-profile-stop' }
  | { type: 'close' };

export interface RssReport {
  baseline: number;
  peak: number;
}

interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SamplingNode[];
}

let inspector: Session | undefined;

/** Sampled bytes by allocating function (name, file and line), largest first. */
function bytesBySite(head: SamplingNode): [string, number][] {
  const sites = new Map<string, number>();
  const visit = (node: SamplingNode) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const site = `${functionName || '(anonymous)'} ${url.split('/').slice(-3).join('/')}:${lineNumber + 1}`;
    if (node.selfSize > 0) sites.set(site, (sites.get(site) ?? 0) + node.selfSize);
    for (const child of node.children) visit(child);
  };
  visit(head);
  return [...sites].sort((a, b) => b[1] - a[1]);
}

const config = JSON.parse(process.argv[2] ?? '{}') as ServerConfig;
const gc = (globalThis as { gc?: () => void }).gc;

async function main(): Promise<void> {
  const { store, close: closeStore } = await makeStore(config);
  const usesReceiver = config.contender === 'ours' || config.contender === 'rawbody';
  const receiver = usesReceiver ? makeReceiver(config, store) : undefined;
  const build = { express: expressApp, fastify: fastifyApp, koa: koaApp }[config.framework];
  const server: Server = await build(config.contender, receiver, config.maxBodyBytes).listen();

  let sampler: NodeJS.Timeout | undefined;
  let rss: RssReport = { baseline: 0, peak: 0 };
  let maxRssBefore = 0;

  serveParent({
    server,
    replies: {
      stats: () => ({ type: 'stats', ...counters }),
      // The process's CPU time so far (every thread, user and kernel), read around each timed run.
      cpu: () => {
        const { user, system } = process.cpuUsage();
        return { type: 'cpu', micros: user + system };
      },
      'rss-start': () => {
        gc?.();
        const baseline = process.memoryUsage.rss();
        rss = { baseline, peak: baseline };
        maxRssBefore = process.resourceUsage().maxRSS * 1024;
        sampler = setInterval(() => {
          rss.peak = Math.max(rss.peak, process.memoryUsage.rss());
        }, 2);
        return { type: 'rss-started' };
      },
      'rss-stop': () => {
        clearInterval(sampler);
        // maxRSS is the lifetime peak: it only tells us something when it rose during the probe.
        const maxRssAfter = process.resourceUsage().maxRSS * 1024;
        if (maxRssAfter > maxRssBefore) rss.peak = Math.max(rss.peak, maxRssAfter);
        return { type: 'rss', ...rss };
      },
      // V8 reads its trace flags at each collection: from here on, every one prints `allocated=<bytes>`
      // (allocated since the previous one) on stdout, for allocations.ts to add up.
      'gc-trace-on': () => {
        setFlagsFromString('--trace-gc-nvp');
        return { type: 'gc-trace' };
      },
      'gc-trace-off': () => {
        setFlagsFromString('--no-trace-gc-nvp');
        return { type: 'gc-trace' };
      },
      // V8's sampling heap profiler, counting what the scavenges collected too (what a request allocates
      // and drops): bytes sampled per allocating function, for allocations.ts --by-function.
      'heap-sampling-start': async () => {
        inspector ??= new Session();
        inspector.connect();
        await inspector.post('HeapProfiler.startSampling', {
          samplingInterval: 512,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: true,
        } as object);
        return { type: 'heap-sampling' };
      },
      'heap-sampling-stop': async () => {
        const { profile } = await inspector!.post('HeapProfiler.stopSampling');
        inspector!.disconnect();
        return { type: 'heap-sampling', bySite: bytesBySite(profile.head) };
      },
      // V8's sampling CPU profiler over a window of requests, for cpu-profile.ts.
      'cpu-profile-start': async (message) => {
        inspector ??= new Session();
        inspector.connect();
        await inspector.post('Profiler.enable');
        await inspector.post('Profiler.setSamplingInterval', {
          interval: (message as { interval?: number }).interval ?? 50,
        });
        await inspector.post('Profiler.start');
        return { type: 'cpu-profile' };
      },
      'cpu-profile-stop': async () => {
        const { profile } = await inspector!.post('Profiler.stop');
        inspector!.disconnect();
        return { type: 'cpu-profile', profile };
      },
    } satisfies Record<string, (message: object) => object | Promise<object>>,
    async close() {
      await receiver?.close(2000);
      await closeStore();
    },
  });
}

startChild(main);
