/**
 * One server under test, in its own process: `node --import tsx http-server.ts '<ServerConfig json>'`.
 * Talks to the benchmark over IPC: sends { type: 'ready', port }, answers 'stats' and the RSS probe.
 */
import type { Server } from 'node:http';
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
  | { type: 'close' };

export interface RssReport {
  baseline: number;
  peak: number;
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
    } satisfies Record<Exclude<ServerRequest['type'], 'close'>, () => object>,
    async close() {
      await receiver?.close(2000);
      await closeStore();
    },
  });
}

startChild(main);
