import type { ChildProcess } from 'node:child_process';
import type { LoadRequest, LoadResult } from '../load/load-runner.js';
import type { ServerConfig } from '../servers/contenders.js';
import { forkTs, nextMessage, request, stopChild } from './child.js';

const SERVER = new URL('../servers/http-server.ts', import.meta.url);
const LOAD = new URL('../load/load-runner.ts', import.meta.url);

export interface RunningServer {
  config: ServerConfig;
  child: ChildProcess;
  url: string;
}

export async function startServer(config: ServerConfig): Promise<RunningServer> {
  const child = await forkTs(SERVER, [JSON.stringify(config)], ['--expose-gc']);
  const { port } = await nextMessage<{ port: number }>(child, 'ready');
  return { config, child, url: `http://127.0.0.1:${port}/webhooks` };
}

export function serverStats(server: RunningServer): Promise<{ accepted: number; refused: number }> {
  return request(server.child, { type: 'stats' }, 'stats');
}

export interface LoadRunner {
  run(request: Omit<LoadRequest, 'type'>): Promise<LoadResult>;
  stop(): Promise<void>;
}

export async function startLoadRunner(): Promise<LoadRunner> {
  const child = await forkTs(LOAD);
  // A loaded machine can take minutes to start a tsx process.
  await nextMessage(child, 'ready', 10 * 60_000);
  return {
    async run(load) {
      const result = await request<LoadResult>(child, { type: 'run', ...load }, 'result', 600_000);
      if (result.error) throw new Error(`load runner: ${result.error}`);
      return result;
    },
    stop: () => stopChild(child),
  };
}

export async function stopAll(servers: readonly RunningServer[]): Promise<void> {
  await Promise.all(servers.map((s) => stopChild(s.child)));
}
